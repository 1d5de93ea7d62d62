/**
 * The words of the language, most frequent first: what the relevance floor knows of a query word
 * that no memory holds. A word the language has ("sourdough") names a topic the store lacks; a
 * word it lacks ("sneemflix") names something — a service, a person, a made-up thing — that no
 * memory the caller can read mentions. Frequency tells a topical word ("salmon", rank ~7,000) from
 * a word that fits any question ("well", "good", rank ~200).
 *
 * Held compactly (one byte buffer, sorted, with offsets and ranks): 200,000 words take ~3 MB,
 * where a Map of strings takes ~15.
 */
export class Lexicon {
  private readonly text: Buffer;
  private readonly starts: Uint32Array;
  private readonly ranks: Uint32Array;

  /** `words` most frequent first (their rank is their position); only lower-case letter words are kept. */
  constructor(words: readonly string[]) {
    const kept: Array<{ word: string; rank: number }> = [];
    words.forEach((word, rank) => {
      if (isLetterWord(word)) kept.push({ word, rank });
    });
    // `rank` searches in UTF-8 byte order. Strings compare by UTF-16 code unit, which is the same
    // order unless a word holds a character past U+FFFF: only then compare bytes (10× slower).
    const astral = kept.some(({ word }) => /[\uD800-\uDFFF]/.test(word));
    kept.sort(
      astral
        ? (a, b) => Buffer.compare(Buffer.from(a.word, 'utf8'), Buffer.from(b.word, 'utf8'))
        : (a, b) => (a.word < b.word ? -1 : a.word > b.word ? 1 : 0),
    );
    this.text = Buffer.from(kept.map((k) => k.word).join(''), 'utf8');
    this.starts = new Uint32Array(kept.length + 1);
    this.ranks = new Uint32Array(kept.length);
    let at = 0;
    kept.forEach((k, i) => {
      this.starts[i] = at;
      this.ranks[i] = k.rank;
      at += Buffer.byteLength(k.word, 'utf8');
    });
    this.starts[kept.length] = at;
  }

  get size(): number {
    return this.ranks.length;
  }

  /** The word's frequency rank (0 most frequent), or undefined when the language lacks it. */
  rank(word: string): number | undefined {
    const key = Buffer.from(word, 'utf8');
    let lo = 0;
    let hi = this.ranks.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const order = Buffer.compare(this.text.subarray(this.starts[mid], this.starts[mid + 1]), key);
      if (order === 0) return this.ranks[mid];
      if (order < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }

  /**
   * Whether `word` (lower case) is a word of the language: listed, or made of two common words
   * ("datastore", "cutover") or a common prefix and a common word ("recompile"), as new technical
   * words usually are.
   */
  has(word: string): boolean {
    if (this.rank(word) !== undefined) return true;
    const common = (part: string) => (this.rank(part) ?? Infinity) < COMMON_RANK;
    const prefix = PREFIXES.find((p) => word.startsWith(p) && word.length - p.length >= MIN_PART);
    if (prefix !== undefined && common(word.slice(prefix.length))) return true;
    for (let cut = MIN_PART; cut <= word.length - MIN_PART; cut += 1)
      if (common(word.slice(0, cut)) && common(word.slice(cut))) return true;
    return false;
  }

  /**
   * How much a word says about a topic, 0 to 1: its frequency rank over `SPECIFIC_RANK`, capped at
   * 1 — "the", "how" and "good" near 0, "cloud" 1. A word the language lacks is fully specific.
   */
  specificity(word: string): number {
    const rank = this.rank(word);
    return rank === undefined ? 1 : Math.min(1, rank / SPECIFIC_RANK);
  }
}

/** From this rank on a word is fully specific (docs/performance.md: chosen on the dev split). */
export const SPECIFIC_RANK = 5_000;
/** The parts of a compound word must be this common (the 30,000 most frequent words). */
const COMMON_RANK = 30_000;
const MIN_PART = 3;
const PREFIXES = ['re', 'un', 'pre', 'non', 'de', 'sub', 'multi', 'auto'];

/** Lower-case letters only (any script): what `Lexicon.has` is asked about. */
export function isLetterWord(word: string): boolean {
  return /^\p{Ll}+$/u.test(word);
}
