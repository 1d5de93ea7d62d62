import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { TenantTextIndex, type IndexedDoc, type TextAudience } from '@app/recall/testing';
import { generateMemories, generateQueries } from '../corpus/memory-generator';
import { percentile } from '../metrics';

/**
 * The text leg's top-k alone, at a size the full benchmark needs an hour to load: one tenant's
 * `TenantTextIndex` built in this process from the benchmark's generated memories, tokenised by
 * Postgres exactly as `search_vector` is (content A, expanded keywords B, tags C, category D; weighted
 * frequencies in tenths as `text_weighted_tf` counts them), then `search` timed on unseen queries for
 * one team member who reads the whole team. Every answer is checked against an exhaustive BM25 over
 * every document (same statistics, same 32 rarest terms, same formula): the index must be exact.
 *
 *   npm run bench:text-index -- [--size 1000000] [--queries 200] [--k 30] [--check 200]
 *     [--accumulate auto --accumulate always --accumulate never] [--query "text" …] [--slowest 10]
 *
 * Needs only Postgres (no schema: `to_tsvector` runs on the texts). Reports p50/p95/p99 of `search`,
 * the postings a query's terms hold, load time and heap.
 */
const { values } = parseArgs({
  options: {
    size: { type: 'string', default: '1000000' },
    queries: { type: 'string', default: '200' },
    k: { type: 'string', default: '30' },
    users: { type: 'string', default: '20' },
    /** How the index scores: auto (its own choice per query), always (term at a time), never. */
    accumulate: { type: 'string', multiple: true, default: ['auto'] },
    /** How many answers to check against the exhaustive BM25 (it takes ~0.5 s each at 1M). */
    check: { type: 'string', default: '200' },
    /** How many of the slowest queries to list, with each way's time and their terms' counts. */
    slowest: { type: 'string', default: '0' },
    /** Texts searched beside the generated ones (e.g. a rare word beside common ones). */
    query: { type: 'string', multiple: true, default: [] },
    'admin-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});

const K1 = 1.2;
const B = 0.75;
const BATCH = 5_000;

const TOKENISE = `
  WITH input AS (
    SELECT ordinality AS i, c, k, t, g
      FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS x(c, k, t, g)
  ), vectors AS (
    SELECT i, setweight(to_tsvector('english', c), 'A') || setweight(to_tsvector('english', k), 'B') ||
              setweight(to_tsvector('english', t), 'C') || setweight(to_tsvector('english', g), 'D') AS v
      FROM input
  )
  SELECT tsvector_to_array(v) AS lexemes,
         ARRAY(SELECT (SELECT sum(CASE w WHEN 'A' THEN 10 WHEN 'B' THEN 4 WHEN 'C' THEN 2 ELSE 1 END)
                         FROM unnest(u.weights) w)::int
                 FROM unnest(v) u) AS tfs
    FROM vectors ORDER BY i`;

interface Corpus {
  readonly docs: { lexemes: number[]; tfs: number[]; length: number }[];
  readonly termIds: Map<string, number>;
  readonly df: number[];
}

async function main(): Promise<void> {
  const size = Number(values.size);
  const k = Number(values.k);
  const users = Number(values.users);
  const pg = new Client({ connectionString: values['admin-url'] });
  await pg.connect();
  try {
    const modes = values.accumulate.map((mode) => {
      if (mode !== 'auto' && mode !== 'always' && mode !== 'never')
        throw new Error(`--accumulate takes auto, always or never, got "${mode}"`);
      return mode;
    });
    const indexes = modes.map((accumulate) => new TenantTextIndex({ accumulate }));
    const corpus: Corpus = { docs: [], termIds: new Map(), df: [] };
    const started = performance.now();
    let batch: ReturnType<typeof generateMemories> extends Generator<infer T> ? T[] : never = [];
    const flush = async () => {
      const { rows } = await pg.query<{ lexemes: string[]; tfs: number[] }>(TOKENISE, [
        batch.map((m) => m.content),
        batch.map((m) => m.expandedKeywords),
        batch.map((m) => m.tags.join(' ')),
        batch.map((m) => m.category),
      ]);
      rows.forEach((row, i) => {
        const memory = batch[i];
        const id = corpus.docs.length + 1;
        const doc: IndexedDoc = {
          id,
          seq: id,
          live: true,
          ownerId: `user-${memory.owner}`,
          team: true,
          tags: memory.tags,
          category: memory.category,
          project: memory.project,
          createdMs: 1_700_000_000_000 + id * 1000,
          expiresMs: null,
          lexemes: row.lexemes,
          tfs: row.tfs,
          importance: memory.importance,
        };
        for (const index of indexes) index.apply(doc);
        const ids = row.lexemes.map((lexeme) => {
          let term = corpus.termIds.get(lexeme);
          if (term === undefined) {
            term = corpus.df.length;
            corpus.termIds.set(lexeme, term);
            corpus.df.push(0);
          }
          corpus.df[term] += 1;
          return term;
        });
        corpus.docs.push({ lexemes: ids, tfs: row.tfs, length: row.tfs.reduce((s, t) => s + t, 0) });
      });
      batch = [];
    };
    for (const memory of generateMemories({ count: size, users, seed: 28 })) {
      batch.push(memory);
      if (batch.length === BATCH) await flush();
    }
    if (batch.length > 0) await flush();
    const loadMs = performance.now() - started;

    const queries = [
      ...values.query.map((text) => ({ owner: 0, text })),
      ...generateQueries({ count: Number(values.queries), users, seed: 2801 }),
    ];
    const { rows } = await pg.query<{ lexemes: string[] }>(
      `SELECT ARRAY(SELECT x FROM unnest(tsvector_to_array(to_tsvector('english', t))) x ORDER BY x COLLATE "C") AS lexemes
         FROM unnest($1::text[]) WITH ORDINALITY AS q(t, i) ORDER BY i`,
      [queries.map((q) => q.text)],
    );
    const audience: TextAudience = { userId: 'user-0', admin: false, shared: new Set(), tagRules: new Map() };
    const fmt = (n: number) => n.toFixed(2);
    const heapMb = process.memoryUsage().heapUsed / 2 ** 20;
    console.log(
      [
        `text index top-${k} over ${indexes[0].documents.toLocaleString('en')} memories (one team, ${users} members), ${rows.length} unseen queries`,
        `  load (generate + tokenise in Postgres + apply to ${indexes.length}): ${(loadMs / 1000).toFixed(1)} s; index ${(indexes[0].bytes / 2 ** 20).toFixed(1)} MiB; heap ${heapMb.toFixed(0)} MiB`,
      ].join('\n'),
    );
    const checked = rows.slice(0, Number(values.check)).map((row) => exhaustive(corpus, row.lexemes, k));
    if (checked.length > 0) {
      const postings = checked.map((c) => c.postings);
      console.log(
        `  postings per query (its terms' lists, ${checked.length} queries): p50 ${percentile(postings, 50).toLocaleString('en')}, max ${Math.max(...postings).toLocaleString('en')}`,
      );
    }
    const timesOf: number[][] = [];
    indexes.forEach((index, i) => {
      const search = (lexemes: readonly string[]) =>
        index.search({ lexemes, k, k1: K1, b: B, filter: {}, audience, nowMs: Date.now() });
      // Warm the JIT first: one untimed pass.
      for (const row of rows) search(row.lexemes);
      const times: number[] = [];
      let mismatches = 0;
      rows.forEach((row, q) => {
        const t0 = performance.now();
        const hits = search(row.lexemes);
        times.push(performance.now() - t0);
        if (q < checked.length && !sameRanking(hits, checked[q].hits)) mismatches += 1;
      });
      timesOf.push(times);
      console.log(
        `  ${modes[i].padEnd(6)} search p50 / p95 / p99 / max ms: ${fmt(percentile(times, 50))} / ${fmt(percentile(times, 95))} / ${fmt(percentile(times, 99))} / ${fmt(Math.max(...times))}; exact ${checked.length - mismatches} of ${checked.length}`,
      );
      if (mismatches > 0) process.exitCode = 1;
    });
    // The slowest queries of the first way, with every way's time and the query terms' document counts.
    const slowest = rows.map((_, q) => q).sort((x, y) => timesOf[0][y] - timesOf[0][x]);
    for (const q of slowest.slice(0, Number(values.slowest))) {
      const dfs = rows[q].lexemes.map((l) => corpus.df[corpus.termIds.get(l) ?? -1] ?? 0);
      console.log(
        `    ${timesOf.map((t) => t[q].toFixed(2)).join(' / ')} ms  df ${dfs.join(',')}  "${queries[q].text}"`,
      );
    }
  } finally {
    await pg.end();
  }
}

/** Every document scored: the same statistics, the same 32 rarest terms and the same sum order. */
function exhaustive(corpus: Corpus, lexemes: readonly string[], k: number) {
  const n = corpus.docs.length;
  const avgdl = corpus.docs.reduce((s, d) => s + d.length, 0) / n;
  const terms: number[] = [];
  for (const lexeme of lexemes) {
    const term = corpus.termIds.get(lexeme);
    if (term !== undefined && !terms.includes(term)) terms.push(term);
  }
  terms.sort((a, b) => corpus.df[a] - corpus.df[b]);
  const rank = new Map(terms.slice(0, 32).map((t, i) => [t, i]));
  const idf = (t: number) => Math.log(1 + (n - corpus.df[t] + 0.5) / (corpus.df[t] + 0.5));
  const scored: { memoryId: number; score: number }[] = [];
  let postings = 0;
  const parts = new Float64Array(rank.size);
  corpus.docs.forEach((doc, i) => {
    let any = false;
    parts.fill(0);
    doc.lexemes.forEach((term, j) => {
      const at = rank.get(term);
      if (at === undefined) return;
      any = true;
      postings += 1;
      const tf = doc.tfs[j] / 10;
      parts[at] = (idf(term) * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * doc.length) / avgdl));
    });
    if (!any) return;
    let score = 0;
    for (const part of parts) score += part;
    scored.push({ memoryId: i + 1, score });
  });
  scored.sort((x, y) => y.score - x.score || y.memoryId - x.memoryId);
  return { hits: scored.slice(0, k), postings };
}

/** Same scores in the same order; ids may differ only among scores equal to within float noise. */
function sameRanking(
  got: readonly { memoryId: number; score: number }[],
  want: readonly { memoryId: number; score: number }[],
): boolean {
  if (got.length !== want.length) return false;
  const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));
  for (let i = 0; i < got.length; i += 1) {
    if (!close(got[i].score, want[i].score)) return false;
    if (got[i].memoryId !== want[i].memoryId && !want.some((w) => w.memoryId === got[i].memoryId)) {
      // A different id at a tie with the k-th score is as exact as the reference's.
      if (!close(got[i].score, want[want.length - 1].score)) return false;
    }
  }
  return true;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
