import type { Lexicon } from './lexicon';

/**
 * When no word of the query occurs in any memory the caller may read (the text leg found nothing),
 * the vector leg alone decides, and a nearest neighbour always exists: a made-up word would still get
 * k memories back. Then a memory found by meaning alone must be this close to the query (cosine
 * similarity), or it is left out — and with nothing else found, the answer is empty.
 *
 * Per model, because similarity scales differ. USE-lite (measured, docs/performance.md): made-up
 * words score 0.12–0.24 against a team's memories one by one; their nearest memory in the evaluation
 * corpora (200 and 1,104 memories) 0.42 at the median and up to 0.54; a paraphrase with no word in
 * common 0.43 ("bought car" / "Alice purchased a new automobile last week", as the service embeds
 * both). So this floor alone stops made-up words in a team's store, not every one in a large store;
 * the query's own words do the rest (`floorVerdict`). GloVe-SIF embeds unknown words to nothing already.
 */
const MODEL_FLOORS: Readonly<Record<string, number>> = {
  'use-lite-512d': 0.4,
  'glove-sif-100d': 0.4,
};

/** The floor for `modelId`: the configured one when set, else the model's own (none for unknown models). */
export function unmatchedVectorFloor(modelId: string, configured: number | undefined): number {
  return configured ?? MODEL_FLOORS[modelId] ?? -1;
}

/**
 * The similarity of the nearest memory that answers a query whose topical words are mostly absent
 * from the caller's memories (a paraphrase) — below it such a query is off-topic. Chosen on the
 * evaluation's dev split for USE-lite: answerable paraphrase questions reach 0.42–0.62, questions on
 * topics the corpora lack 0.24–0.41. Other models have none, and the topic rule does not apply to them.
 */
const MODEL_MEANING_FLOORS: Readonly<Record<string, number>> = {
  'use-lite-512d': 0.42,
};

/** The meaning floor for `modelId`: the configured one when set, else the model's own, else null. */
export function meaningFloor(modelId: string, configured: number | undefined): number | null {
  return configured ?? MODEL_MEANING_FLOORS[modelId] ?? null;
}

/**
 * The similarity of the nearest memory that a query with thin coverage (at or above the coverage floor
 * but below the thin-coverage floor: one or two of its topical words found) needs to answer. Chosen on
 * the team-conversations dev split for USE-lite (docs/performance.md): its answerable questions with
 * coverage 0.2–0.3 have their nearest memory at 0.39–0.66, its one absent-topic question there ("What
 * is the speed limit on German motorways?") 0.31; every value from 0.33 to 0.38 silences it and no
 * answerable question. Other models have none, and the band answers on coverage.
 */
const MODEL_THIN_MEANING_FLOORS: Readonly<Record<string, number>> = {
  'use-lite-512d': 0.35,
};

/** The thin-coverage meaning floor for `modelId`: configured, else the model's own, else null. */
export function thinMeaningFloor(modelId: string, configured: number | undefined): number | null {
  return configured ?? MODEL_THIN_MEANING_FLOORS[modelId] ?? null;
}

/** A word of the query (a chunk Postgres makes at least one lexeme of) and whether a readable memory holds it. */
export interface QueryWord {
  readonly chunk: string;
  readonly present: boolean;
}

/** What the query's words say about whether the caller's memories can answer it. */
export interface QueryEvidence {
  /** Share of the query's specificity (Lexicon.specificity) held by words some readable memory has. */
  readonly coverage: number;
  /** Share held by words no readable memory has and the language lacks (names of unknown things). */
  readonly unknownShare: number;
  readonly unknownWords: readonly string[];
}

/** Null when the query has no content word (only stop words or punctuation): nothing to judge. */
export function queryEvidence(words: readonly QueryWord[], lexicon: Lexicon): QueryEvidence | null {
  const seen = new Map<string, QueryWord>();
  for (const w of words) {
    const key = w.chunk.trim().toLowerCase();
    const before = seen.get(key);
    if (before === undefined || (w.present && !before.present)) seen.set(key, { ...w, chunk: key });
  }
  let total = 0;
  let present = 0;
  let unknown = 0;
  const unknownWords: string[] = [];
  for (const w of seen.values()) {
    const pieces = w.chunk.match(/[\p{L}\p{N}]+/gu) ?? [];
    if (pieces.length === 0) continue;
    const weight = Math.max(...pieces.map((p) => (/\p{N}/u.test(p) ? 1 : lexicon.specificity(p))));
    total += weight;
    if (w.present) present += weight;
    else if (pieces.some((p) => p.length >= 3 && !/\p{N}/u.test(p) && !lexicon.has(p))) {
      unknown += weight;
      unknownWords.push(w.chunk);
    }
  }
  if (total === 0) return null;
  return { coverage: present / total, unknownShare: unknown / total, unknownWords };
}

/**
 * RECALL_COVERAGE_FLOOR, RECALL_UNKNOWN_WORD_FLOOR, RECALL_THIN_COVERAGE_FLOOR and the model's meaning
 * floors.
 */
export interface FloorSettings {
  /** Below this coverage a query is off-topic unless its nearest memory is close in meaning. */
  readonly coverage: number;
  /** From this share of unknown words on, the answer is empty. */
  readonly unknownShare: number;
  /** The meaning floor (`meaningFloor`); null: the topic rule does not apply. */
  readonly meaning: number | null;
  /**
   * From `coverage` up to this coverage (thin coverage) a query answers only when its nearest memory
   * reaches `thinMeaning`; at or below `coverage` the band is empty.
   */
  readonly thinCoverage: number;
  /** The thin-coverage meaning floor (`thinMeaningFloor`); null: thin coverage answers on coverage. */
  readonly thinMeaning: number | null;
}

export const DEFAULT_FLOOR_SETTINGS: Omit<FloorSettings, 'meaning' | 'thinMeaning'> = {
  coverage: 0.2,
  unknownShare: 0.3,
  thinCoverage: 0.3,
};

/** Why an answer was given (`passed`) or left empty (`silenced`). */
export type FloorVerdict =
  | { readonly answer: true; readonly passed: 'no-query-words' | 'coverage' | 'meaning' | 'uncalibrated' }
  | { readonly answer: false; readonly silenced: 'unknown-words' | 'off-topic' };

/**
 * Whether a recall answers at all. Empty when the query names something no readable memory
 * mentions and the language does not know ("Who owns the sneemflix service?"), or when its topical
 * words are mostly absent from the caller's memories ("a recipe for sourdough bread") and no memory
 * is close in meaning. Between the two coverage floors ("How do I apply for a fishing licence?" meets
 * "apply" alone) a memory must be somewhat close in meaning: both kinds of evidence are weak, and
 * neither alone decides. `nearest`: the best cosine similarity of the vector leg, null without one
 * (thin coverage then answers: nothing can tell it from a paraphrase).
 */
export function floorVerdict(
  evidence: QueryEvidence | null,
  nearest: number | null,
  settings: FloorSettings,
): FloorVerdict {
  if (evidence === null) return { answer: true, passed: 'no-query-words' };
  if (evidence.unknownShare >= settings.unknownShare) return { answer: false, silenced: 'unknown-words' };
  // A coverage floor of 0 turns the topic rule off, thin coverage included.
  if (settings.coverage <= 0 || evidence.coverage >= Math.max(settings.coverage, settings.thinCoverage))
    return { answer: true, passed: 'coverage' };
  if (evidence.coverage >= settings.coverage) {
    if (nearest === null || settings.thinMeaning === null) return { answer: true, passed: 'coverage' };
    return nearest >= settings.thinMeaning
      ? { answer: true, passed: 'meaning' }
      : { answer: false, silenced: 'off-topic' };
  }
  if (nearest === null) return { answer: false, silenced: 'off-topic' };
  if (settings.meaning === null) return { answer: true, passed: 'uncalibrated' };
  return nearest >= settings.meaning
    ? { answer: true, passed: 'meaning' }
    : { answer: false, silenced: 'off-topic' };
}
