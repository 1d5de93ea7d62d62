/**
 * A query's chunks: the pieces between ASCII spaces, tabs and line breaks, where Postgres's default
 * text-search parser always ends a token. Where a chunk stands matters for one thing: the parser
 * starts a text in a state where `.` and `~` begin a path (`../x`, `~/x`, `..`), but meets what
 * follows a space in its blank state, where they do not. So a chunk that starts with either and
 * does not start the text is named with the space before it (` ../x`); every other chunk parses
 * the same anywhere and is named as it is. Tokenised as named here, the chunks' lexemes are
 * `to_tsvector('english', …)`'s of the whole text — except for markup (`<b class="x">`), a token
 * that spans spaces: a text with `<` gets null, and Postgres must parse it whole.
 * `libs/recall/test/query-lexemes.test.ts` holds this against `to_tsvector` itself.
 */
export function queryChunks(text: string): string[] | null {
  if (text.includes('<')) return null;
  const chunks: string[] = [];
  text.split(/[ \t\r\n]+/).forEach((chunk, i) => {
    if (chunk === '') return;
    chunks.push(i > 0 && (chunk.startsWith('.') || chunk.startsWith('~')) ? ` ${chunk}` : chunk);
  });
  return chunks;
}

/** What a cache knows of a query: its lexemes, or the chunks it must ask for; null: Postgres parses it. */
export type LexemeLookup = { readonly lexemes: string[] } | { readonly ask: string[] } | null;

/**
 * Each process's memory of how Postgres tokenises query chunks (chunk → its lexemes, `[]` for stop
 * words and punctuation), learnt from the statements that bring an index up to date, so that a
 * query made of known chunks is tokenised here: its lexemes distinct and in byte order, as
 * `recall_index_refresh` returns them. Bounded: past `max` chunks it starts again.
 */
export class LexemeCache {
  private readonly known = new Map<string, readonly string[]>();

  constructor(private readonly max = 100_000) {}

  get size(): number {
    return this.known.size;
  }

  lookup(text: string): LexemeLookup {
    const chunks = queryChunks(text);
    if (chunks === null) return null;
    const lexemes = new Set<string>();
    const ask = new Set<string>();
    for (const chunk of chunks) {
      const known = this.known.get(chunk);
      if (known === undefined) ask.add(chunk);
      else for (const lexeme of known) lexemes.add(lexeme);
    }
    if (ask.size > 0) return { ask: [...ask] };
    return { lexemes: [...lexemes].sort(byteOrder) };
  }

  /** Each chunk of the text with its lexemes; null when the text has a chunk this cache does not know. */
  chunks(text: string): { readonly chunk: string; readonly lexemes: readonly string[] }[] | null {
    const chunks = queryChunks(text);
    if (chunks === null) return null;
    const found: { chunk: string; lexemes: readonly string[] }[] = [];
    for (const chunk of chunks) {
      const lexemes = this.known.get(chunk);
      if (lexemes === undefined) return null;
      found.push({ chunk, lexemes });
    }
    return found;
  }

  /** `lexemes[i]` is what Postgres makes of `chunks[i]`. */
  learn(chunks: readonly string[], lexemes: readonly (readonly string[])[]): void {
    if (this.known.size + chunks.length > this.max) this.known.clear();
    chunks.forEach((chunk, i) => {
      if (Array.isArray(lexemes[i])) this.known.set(chunk, lexemes[i]);
    });
  }
}

/** As `COLLATE "C"` compares: by the bytes of the UTF-8 text. */
function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
