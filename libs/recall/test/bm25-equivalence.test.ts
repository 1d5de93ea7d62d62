import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { MemoryTextSearchRepository, type TextSearchOptions } from '@app/recall/testing';
import { type TenantScope } from '@app/persistence';
import { createTestTenant, openTestDatabase, type TestDatabase } from '@app/testing';

/**
 * The text leg is Okapi BM25, exactly: for a few hundred varied documents in one tenant and 40
 * queries, the service's top 10 (ids in order, ties by id descending) equals a BM25 written here
 * from the formula. Tokens come from Postgres (each document's `search_vector` positions and their
 * field labels, each query's `to_tsvector('english', …)` lexemes), so only the scoring is
 * independent: N, df and avgdl are counted here from the documents, not read from the statistics.
 */
const FIELD_WEIGHT: Record<string, number> = { A: 1, B: 0.4, C: 0.2, D: 0.1 };
const DOCUMENTS = 400;
const QUERIES = 40;

/** mulberry32: the same corpus on every run. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'deploy deployment database migration rollback helm chart cluster node pod service ingress latency cache ' +
  'redis postgres index vacuum replica backup restore incident outage alert pager oncall runbook review ' +
  'decision release version branch merge rebase pipeline build test flaky timeout retry queue worker job ' +
  'schema column tenant user permission token secret vault rotate certificate expiry dns proxy gateway ' +
  'memory embedding vector recall search ranking fusion keyword stemming tokenizer language english ' +
  'meeting tuesday friday january march quarter budget customer contract invoice payment refund'
).split(' ');
const NAMES = ['Alice', 'Bob', 'Priya', 'Sam', 'Chen', 'Okafor', 'Lindqvist', 'Maria'];
const FILLER = ['the', 'a', 'is', 'was', 'and', 'of', 'to', 'we', 'it', 'because', 'after', 'with'];

function makeText(random: () => number, length: number): string {
  const out: string[] = [];
  for (let i = 0; i < length; i += 1) {
    const r = random();
    if (r < 0.25) out.push(FILLER[Math.floor(random() * FILLER.length)]);
    else if (r < 0.32) out.push(NAMES[Math.floor(random() * NAMES.length)]);
    else if (r < 0.37) out.push(String(Math.floor(random() * 40) * 7));
    // Zipf-like: low indexes far more often, so some terms are common and many are rare.
    else out.push(WORDS[Math.floor(WORDS.length * random() ** 2.2)]);
  }
  return out.join(' ');
}

interface Doc {
  readonly id: number;
  readonly tf: Map<string, number>;
  readonly length: number;
}
interface Scored {
  readonly id: number;
  readonly score: number;
}

function referenceBm25(docs: Doc[], terms: string[], { k1, b }: TextSearchOptions): Scored[] {
  const n = docs.length;
  const avgdl = docs.reduce((s, d) => s + d.length, 0) / n;
  const idf = new Map<string, number>();
  for (const t of new Set(terms)) {
    const df = docs.filter((d) => d.tf.has(t)).length;
    if (df > 0) idf.set(t, Math.log(1 + (n - df + 0.5) / (df + 0.5)));
  }
  const scored: Scored[] = [];
  for (const d of docs) {
    let score = 0;
    let matched = false;
    for (const [t, w] of idf) {
      const tf = d.tf.get(t);
      if (tf === undefined) continue;
      matched = true;
      score += (w * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * d.length) / avgdl));
    }
    if (matched) scored.push({ id: d.id, score });
  }
  return scored.sort((x, y) => y.score - x.score || y.id - x.id);
}

describe('BM25 text leg against a reference implementation', () => {
  let db: TestDatabase;
  let user: TenantScope;
  const docs: Doc[] = [];
  const queries: { text: string; terms: string[] }[] = [];

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 2);
    const tenant = await createTestTenant(db, 'bm25');
    user = await tenant.addUser('reader');
    const random = seeded(20251124);
    const contents = Array.from({ length: DOCUMENTS }, (_, i) =>
      // Lengths from 2 to ~80 words; a few near-duplicates make exact ties.
      i % 50 === 49
        ? `duplicate note ${Math.floor(i / 100)}`
        : makeText(random, 2 + Math.floor(random() ** 2 * 80)),
    );
    await db.tx.inTenant(user, (tx) =>
      tx.query(
        `INSERT INTO memories (tenant_id, owner_id, content, content_hash)
         SELECT $1, $2, c, sha256(convert_to(c || o::text, 'UTF8')) FROM unnest($3::text[]) WITH ORDINALITY x(c, o)`,
        [user.tenantId, user.userId, contents],
      ),
    );
    const { rows } = await db.tx.asSystem((tx) =>
      tx.query<{ id: string; lexeme: string; weights: string[] }>(
        `SELECT m.id, u.lexeme, u.weights FROM memories m, unnest(m.search_vector) u WHERE m.tenant_id = $1`,
        [user.tenantId],
      ),
    );
    const byId = new Map<number, { tf: Map<string, number>; length: number }>();
    for (const r of rows) {
      const doc = byId.get(Number(r.id)) ?? { tf: new Map<string, number>(), length: 0 };
      const tf = r.weights.reduce((s, w) => s + FIELD_WEIGHT[w], 0);
      doc.tf.set(r.lexeme, tf);
      doc.length += tf;
      byId.set(Number(r.id), doc);
    }
    for (const [id, d] of byId) docs.push({ id, ...d });

    for (let q = 0; q < QUERIES; q += 1) {
      // One to six words: common and rare terms, names, numbers, stop words, a word no document has.
      const text = [makeText(random, 1 + Math.floor(random() * 5)), q % 9 === 0 ? 'zeppelin' : '']
        .join(' ')
        .trim();
      const { rows: lexemes } = await db.tx.asSystem((tx) =>
        tx.query<{ terms: string[] }>(`SELECT tsvector_to_array(to_tsvector('english', $1)) AS terms`, [
          text,
        ]),
      );
      queries.push({ text, terms: lexemes[0].terms });
    }
  }, 60_000);

  afterAll(async () => {
    await db?.close();
  });

  /** Ours equals the reference's top 10; positions may only differ between equal scores. */
  const expectSameTop10 = async (options: TextSearchOptions) => {
    const text = new MemoryTextSearchRepository(options);
    let compared = 0;
    for (const q of queries) {
      const reference = referenceBm25(docs, q.terms, options);
      const refScore = new Map(reference.map((r) => [r.id, r.score]));
      const ours = await db.tx.inTenant(user, (tx) =>
        text.search(user, tx, { text: q.text, k: 10, filter: {} }),
      );
      const expected = reference.slice(0, 10);
      expect(
        ours.map((h) => h.memoryId),
        q.text,
      ).toHaveLength(expected.length);
      ours.forEach((hit, i) => {
        expect(hit.score, q.text).toBeCloseTo(refScore.get(hit.memoryId) ?? Number.NaN, 9);
        if (hit.memoryId !== expected[i].id) expect(hit.score, q.text).toBeCloseTo(expected[i].score, 9);
      });
      expect(
        ours.map((h) => h.memoryId),
        q.text,
      ).toEqual(expected.map((r) => r.id));
      if (expected.length > 0) compared += 1;
    }
    expect(compared).toBeGreaterThanOrEqual(30);
  };

  it('matches with every change still pending in the statistics deltas', async () => {
    await expectSameTop10({ k1: 1.2, b: 0.75 });
  });

  it('matches once the deltas are folded into the totals, for other k1 and b too', async () => {
    await db.tx.asSystem((tx) => tx.query(`SELECT text_stats_fold(1000000)`));
    await expectSameTop10({ k1: 1.2, b: 0.75 });
    await expectSameTop10({ k1: 2, b: 0.3 });
    await expectSameTop10({ k1: 0.5, b: 1 });
  });
});
