/**
 * The SentencePiece unigram tokenizer Universal Sentence Encoder lite was trained with: NFKC,
 * spaces become "▁" (and one leads the text), then the segmentation with the highest sum of piece
 * log-probabilities (Viterbi). A character where no piece starts is unknown (id 0); consecutive
 * unknowns merge into one, as in the reference implementation (@tensorflow-models/universal-sentence-encoder,
 * Apache-2.0), whose ids the model's embedding table expects. Case is kept: the model is cased.
 */
export type Vocabulary = ReadonlyArray<readonly [piece: string, logProbability: number]>;

const SEPARATOR = '\u2581';
const UNKNOWN_ID = 0;
/** Ids below this are unknown, control and user-defined symbols: never matched in text. */
const RESERVED_SYMBOLS = 6;

export class SentencePieceTokenizer {
  private readonly pieces = new Map<string, { readonly id: number; readonly score: number }>();
  private readonly longestPiece: number;

  constructor(vocabulary: Vocabulary) {
    let longest = 1;
    for (let id = RESERVED_SYMBOLS; id < vocabulary.length; id += 1) {
      const [piece, score] = vocabulary[id];
      this.pieces.set(piece, { id, score });
      longest = Math.max(longest, [...piece].length);
    }
    this.longestPiece = longest;
  }

  /** Piece ids of `text`, at most `maxTokens` of them (the rest is dropped). */
  encode(text: string, maxTokens = Number.POSITIVE_INFINITY): number[] {
    const normalised = text.normalize('NFKC');
    if (normalised.length === 0) return [];
    const symbols = [...`${SEPARATOR}${normalised.replace(/ /g, SEPARATOR)}`];
    const count = symbols.length;
    // Mirrors the reference exactly, quirks included, because its ids are what the model saw in
    // TF.js: a best score of 0 means "not reached yet", and an unknown edge (score 0) is added
    // only where no piece starts.
    const best = new Float64Array(count + 1);
    const start = new Int32Array(count + 1);
    const ids = new Int32Array(count + 1);
    for (let from = 0; from < count; from += 1) {
      let candidate = '';
      let matched = false;
      for (let to = from; to < Math.min(count, from + this.longestPiece); to += 1) {
        candidate += symbols[to];
        const piece = this.pieces.get(candidate);
        if (!piece) continue;
        matched = true;
        this.relax(best, start, ids, { from, to: to + 1, id: piece.id, score: piece.score });
      }
      if (!matched) this.relax(best, start, ids, { from, to: from + 1, id: UNKNOWN_ID, score: 0 });
    }
    const reversed: number[] = [];
    for (let end = count; end > 0; end = start[end]) reversed.push(ids[end]);
    const tokens = reversed
      .reverse()
      .filter((id, i, all) => !(id === UNKNOWN_ID && all[i - 1] === UNKNOWN_ID));
    return tokens.length > maxTokens ? tokens.slice(0, maxTokens) : tokens;
  }

  private relax(
    best: Float64Array,
    start: Int32Array,
    ids: Int32Array,
    edge: { from: number; to: number; id: number; score: number },
  ): void {
    const score = best[edge.from] + edge.score;
    if (best[edge.to] === 0 || score >= best[edge.to]) {
      best[edge.to] = score;
      start[edge.to] = edge.from;
      ids[edge.to] = edge.id;
    }
  }
}
