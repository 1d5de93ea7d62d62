import { describe, expect, it } from 'vitest';
import { Lexicon } from './lexicon';
import {
  DEFAULT_FLOOR_SETTINGS,
  floorVerdict,
  meaningFloor,
  queryEvidence,
  thinMeaningFloor,
  unmatchedVectorFloor,
} from './relevance-floor';

describe('unmatchedVectorFloor', () => {
  it("takes the model's own floor unless one is configured, and none for a model it does not know", () => {
    expect(unmatchedVectorFloor('use-lite-512d', undefined)).toBe(0.4);
    expect(unmatchedVectorFloor('glove-sif-100d', undefined)).toBe(0.4);
    expect(unmatchedVectorFloor('use-lite-512d', 0.45)).toBe(0.45);
    expect(unmatchedVectorFloor('use-lite-512d', -1)).toBe(-1);
    // Cosine similarity is never below -1: every hit passes.
    expect(unmatchedVectorFloor('Xenova/all-MiniLM-L6-v2', undefined)).toBe(-1);
  });
});

describe('meaningFloor', () => {
  it("is the model's own unless configured, and none for a model without one", () => {
    expect(meaningFloor('use-lite-512d', undefined)).toBe(0.42);
    expect(meaningFloor('use-lite-512d', 0.5)).toBe(0.5);
    expect(meaningFloor('glove-sif-100d', undefined)).toBeNull();
  });
});

describe('thinMeaningFloor', () => {
  it("is the model's own unless configured, and none for a model without one", () => {
    expect(thinMeaningFloor('use-lite-512d', undefined)).toBe(0.35);
    expect(thinMeaningFloor('use-lite-512d', 0.3)).toBe(0.3);
    expect(thinMeaningFloor('glove-sif-100d', undefined)).toBeNull();
  });
});

describe('queryEvidence and floorVerdict', () => {
  // the most frequent first: "good" fits any question, "salmon" and "deploy" name topics.
  const lexicon = new Lexicon([
    'the',
    'good',
    'who',
    'owns',
    'service',
    ...Array.from({ length: 6_000 }, (_, i) => `filler${'x'.repeat(i % 7)}`),
    'salmon',
    'recipe',
    'deploy',
    'rollback',
  ]);
  const settings = { ...DEFAULT_FLOOR_SETTINGS, meaning: 0.42, thinMeaning: 0.35 };
  const words = (spec: Record<string, boolean>) =>
    Object.entries(spec).map(([chunk, present]) => ({ chunk, present }));

  it('weighs present words by how specific they are', () => {
    const e = queryEvidence(words({ good: true, salmon: false, 'recipe?': false }), new Lexicon([]));
    // Without a lexicon every word is fully specific.
    expect(e?.coverage).toBeCloseTo(1 / 3);
    const weighted = queryEvidence(words({ good: true, salmon: false, 'recipe?': false }), lexicon);
    expect(weighted?.coverage).toBeLessThan(0.01);
    expect(weighted?.unknownShare).toBe(0);
  });

  it('answers nothing for a name no memory and no dictionary knows', () => {
    const e = queryEvidence(words({ who: true, owns: true, sneemflix: false, 'service?': true }), lexicon);
    expect(e?.unknownWords).toEqual(['sneemflix']);
    expect(floorVerdict(e, 0.9, settings)).toEqual({ answer: false, silenced: 'unknown-words' });
  });

  it('a name a memory holds is not unknown, nor are numbers and short pieces', () => {
    const e = queryEvidence(words({ sneemflix: true, v2: false, 'x-y': false }), lexicon);
    expect(e?.unknownShare).toBe(0);
    expect(floorVerdict(e, null, settings)).toEqual({ answer: true, passed: 'coverage' });
  });

  it('an off-topic query answers only when a memory is close in meaning', () => {
    const e = queryEvidence(words({ good: true, salmon: false, recipe: false }), lexicon);
    expect(floorVerdict(e, 0.3, settings)).toEqual({ answer: false, silenced: 'off-topic' });
    expect(floorVerdict(e, 0.5, settings)).toEqual({ answer: true, passed: 'meaning' });
    expect(floorVerdict(e, null, settings)).toEqual({ answer: false, silenced: 'off-topic' });
    expect(floorVerdict(e, 0.3, { ...settings, meaning: null })).toEqual({
      answer: true,
      passed: 'uncalibrated',
    });
    expect(floorVerdict(e, 0.3, { ...settings, coverage: 0 })).toEqual({ answer: true, passed: 'coverage' });
  });

  it('a query of thin coverage answers only when a memory is somewhat close in meaning', () => {
    // "rollback" found, "salmon", "recipe" and "deploy" not: a quarter of the weight is covered.
    const e = queryEvidence(words({ rollback: true, salmon: false, recipe: false, deploy: false }), lexicon);
    expect(e?.coverage).toBeGreaterThanOrEqual(settings.coverage);
    expect(e?.coverage).toBeLessThan(settings.thinCoverage);
    expect(floorVerdict(e, 0.34, settings)).toEqual({ answer: false, silenced: 'off-topic' });
    expect(floorVerdict(e, 0.36, settings)).toEqual({ answer: true, passed: 'meaning' });
    // Nothing tells it from a paraphrase without a vector leg or a calibrated model: it answers.
    expect(floorVerdict(e, null, settings)).toEqual({ answer: true, passed: 'coverage' });
    expect(floorVerdict(e, 0.2, { ...settings, thinMeaning: null })).toEqual({
      answer: true,
      passed: 'coverage',
    });
    // The band ends at the thin-coverage floor, and is empty at or below the coverage floor.
    expect(floorVerdict(e, 0.2, { ...settings, thinCoverage: 0.2 })).toEqual({
      answer: true,
      passed: 'coverage',
    });
    expect(floorVerdict(e, 0.2, { ...settings, thinCoverage: 0.5 })).toEqual({
      answer: false,
      silenced: 'off-topic',
    });
    // Two of four topical words found is no longer thin.
    const half = queryEvidence(
      words({ rollback: true, deploy: true, salmon: false, recipe: false }),
      lexicon,
    );
    expect(floorVerdict(half, 0.1, settings)).toEqual({ answer: true, passed: 'coverage' });
  });

  it('a query of stop words and punctuation is not judged', () => {
    expect(queryEvidence(words({}), lexicon)).toBeNull();
    expect(queryEvidence(words({ '?!': false }), lexicon)).toBeNull();
    expect(floorVerdict(null, null, settings)).toEqual({ answer: true, passed: 'no-query-words' });
  });

  it('counts a word written twice once, present if either is', () => {
    const e = queryEvidence(words({ Deploy: false, deploy: true }), lexicon);
    expect(e?.coverage).toBe(1);
  });
});
