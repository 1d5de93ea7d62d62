import { describe, expect, it } from 'vitest';
import { memorySample } from './memory-sample';

describe('memorySample', () => {
  const texts = ['alpha beta gamma', 'delta epsilon', 'zeta eta theta iota kappa', 'lambda mu'];
  const corpusWords = texts.join(' ').split(' ');

  it('spreads lengths evenly over the range, made of corpus words', () => {
    const sample = memorySample(texts, { count: 5, minChars: 20, maxChars: 40 });
    const targets = [20, 25, 30, 35, 40];
    sample.forEach((text, i) => {
      expect(text.length).toBeGreaterThanOrEqual(targets[i]);
      expect(text.length).toBeLessThanOrEqual(40);
      for (const word of text.split(' ')) expect(corpusWords).toContain(word);
    });
  });

  it('is deterministic', () => {
    const options = { count: 7, minChars: 10, maxChars: 30 };
    expect(memorySample(texts, options)).toEqual(memorySample(texts, options));
  });
});
