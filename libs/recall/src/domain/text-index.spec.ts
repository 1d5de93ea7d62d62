import { describe, expect, it } from 'vitest';
import { TenantTextIndex, type IndexedDoc, type TextAudience, type TextIndexQuery } from './text-index';
import { TopK } from './top-k';

const OWNER = 'owner';
const doc = (id: number, seq: number, lexemes: string[], extra: Partial<IndexedDoc> = {}): IndexedDoc => ({
  id,
  seq,
  live: true,
  ownerId: OWNER,
  team: false,
  tags: [],
  category: 'notes',
  project: null,
  createdMs: 1_000,
  expiresMs: null,
  lexemes,
  tfs: lexemes.map(() => 10),
  ...extra,
});
const audience = (over: Partial<TextAudience> = {}): TextAudience => ({
  userId: OWNER,
  admin: false,
  shared: new Set(),
  tagRules: new Map(),
  ...over,
});
const query = (lexemes: string[], over: Partial<TextIndexQuery> = {}): TextIndexQuery => ({
  lexemes,
  k: 10,
  k1: 1.2,
  b: 0.75,
  filter: {},
  audience: audience(),
  nowMs: 2_000,
  ...over,
});
const ids = (index: TenantTextIndex, q: TextIndexQuery) => index.search(q).map((h) => h.memoryId);

/** Each way a search can score: its own choice per query, and each forced. */
const MODES = ['auto', 'always', 'never'] as const;

describe('TenantTextIndex', () => {
  it('tells which words a memory the caller may read holds: not deleted, not expired, not private to another', () => {
    const index = new TenantTextIndex();
    index.apply(doc(1, 1, ['helm']));
    index.apply(doc(2, 1, ['vault'], { ownerId: 'other' }));
    index.apply(doc(3, 1, ['kafka'], { ownerId: 'other', team: true }));
    index.apply(doc(4, 1, ['redis'], { expiresMs: 1_500 }));
    index.apply(doc(5, 1, ['nats']));
    index.apply(doc(5, 2, ['nats'], { live: false }));
    index.apply(doc(6, 1, ['vault', 'shared'], { ownerId: 'other' }));
    const read = { audience: audience(), nowMs: 2_000 };
    const words = ['helm', 'vault', 'kafka', 'redis', 'nats', 'shared', 'unheard'];
    expect([...index.present(words, read)].sort()).toEqual(['helm', 'kafka']);
    const shared = { audience: audience({ shared: new Set([6]) }), nowMs: 2_000 };
    expect([...index.present(words, shared)].sort()).toEqual(['helm', 'kafka', 'shared', 'vault']);
    const admin = { audience: audience({ admin: true }), nowMs: 2_000 };
    expect([...index.present(words, admin)].sort()).toEqual(['helm', 'kafka', 'shared', 'vault']);
  });

  it('scores Okapi BM25 over live documents, best first, ties by id descending', () => {
    const index = new TenantTextIndex();
    index.apply(doc(1, 1, ['helm', 'deploy']));
    index.apply(doc(2, 1, ['helm']));
    index.apply(doc(3, 1, ['vault']));
    index.apply(doc(4, 1, ['helm']));
    const hits = index.search(query(['helm']));
    // Equal tf and length: doc 2 and 4 tie and come by id descending; doc 1 is longer.
    expect(hits.map((h) => h.memoryId)).toEqual([4, 2, 1]);
    const idf = Math.log(1 + (4 - 3 + 0.5) / (3 + 0.5));
    const avgdl = (20 + 10 + 10 + 10) / 4;
    expect(hits[0].score).toBeCloseTo((idf * 1 * 2.2) / (1 + 1.2 * (1 - 0.75 + (0.75 * 10) / avgdl)), 12);
  });

  it("tells how much of the query each hit holds: its terms' IDF over the query's, an absent term the rarest", () => {
    const index = new TenantTextIndex();
    index.apply(doc(1, 1, ['nina', 'hello']));
    index.apply(doc(2, 1, ['nina', 'trumpet']));
    index.apply(doc(3, 1, ['nina']));
    index.apply(doc(4, 1, ['theo']));
    const idf = (df: number) => Math.log(1 + (4 - df + 0.5) / (df + 0.5));
    const total = idf(3) + idf(1) + idf(0);
    // "instrument" no memory holds: part of the query no hit covers.
    const hits = index.search(query(['nina', 'trumpet', 'instrument', 'trumpet']));
    const coverage = new Map(hits.map((h) => [h.memoryId, h.coverage]));
    expect(coverage.get(2)).toBeCloseTo((idf(3) + idf(1)) / total, 12);
    expect(coverage.get(1)).toBeCloseTo(idf(3) / total, 12);
    expect(coverage.get(3)).toBeCloseTo(idf(3) / total, 12);
    expect(index.search(query(['nina', 'trumpet']))[0]).toMatchObject({ memoryId: 2, coverage: 1 });
  });

  it('applies changes in any order: an older copy never replaces a newer one', () => {
    const newerFirst = new TenantTextIndex();
    newerFirst.apply(doc(1, 20, ['vault']));
    newerFirst.apply(doc(1, 10, ['helm']));
    const olderFirst = new TenantTextIndex();
    olderFirst.apply(doc(1, 10, ['helm']));
    olderFirst.apply(doc(1, 20, ['vault']));
    for (const index of [newerFirst, olderFirst]) {
      expect(ids(index, query(['helm']))).toEqual([]);
      expect(ids(index, query(['vault']))).toEqual([1]);
      expect(index.documents).toBe(1);
    }
  });

  it('drops soft-deleted and purged memories from results and statistics, and older copies stay out', () => {
    const index = new TenantTextIndex();
    index.apply(doc(1, 1, ['helm']));
    index.apply(doc(2, 1, ['helm']));
    index.apply(doc(1, 5, ['helm'], { live: false }));
    index.remove(2, 6);
    expect(ids(index, query(['helm']))).toEqual([]);
    expect(index.documents).toBe(0);
    index.apply(doc(1, 4, ['helm']));
    index.apply(doc(2, 3, ['helm']));
    expect(ids(index, query(['helm']))).toEqual([]);
    index.apply(doc(1, 7, ['helm']));
    expect(ids(index, query(['helm']))).toEqual([1]);
  });

  it('pre-filters by the read rule: own, team, direct share, tag rule, admin', () => {
    const index = new TenantTextIndex();
    index.apply(doc(1, 1, ['kestrel'], { ownerId: 'olga' }));
    index.apply(doc(2, 1, ['kestrel'], { ownerId: 'olga', team: true }));
    index.apply(doc(3, 1, ['kestrel'], { ownerId: 'olga', tags: ['ops'] }));
    index.apply(doc(4, 1, ['kestrel'], { ownerId: 'rita' }));
    index.apply(doc(5, 1, ['kestrel'], { ownerId: 'sam', tags: ['ops'] }));
    const as = (a: Partial<TextAudience>) => ids(index, query(['kestrel'], { audience: audience(a) })).sort();
    expect(as({ userId: 'rita' })).toEqual([2, 4]);
    expect(as({ userId: 'rita', shared: new Set([1]) })).toEqual([1, 2, 4]);
    expect(as({ userId: 'rita', tagRules: new Map([['olga', new Set(['ops'])]]) })).toEqual([2, 3, 4]);
    expect(as({ userId: 'nobody', admin: true })).toEqual([1, 2, 3, 4, 5]);
  });

  it('applies the recall filters and expiry', () => {
    const index = new TenantTextIndex();
    index.apply(doc(1, 1, ['kestrel'], { category: 'decisions', project: 'p', tags: ['a'], createdMs: 100 }));
    index.apply(doc(2, 1, ['kestrel'], { createdMs: 500, tags: ['b'] }));
    index.apply(doc(3, 1, ['kestrel'], { expiresMs: 1_500 }));
    const filtered = (filter: TextIndexQuery['filter']) => ids(index, query(['kestrel'], { filter })).sort();
    expect(filtered({})).toEqual([1, 2]);
    expect(filtered({ category: 'decisions' })).toEqual([1]);
    expect(filtered({ project: 'p' })).toEqual([1]);
    expect(filtered({ project: 'unknown' })).toEqual([]);
    expect(filtered({ tags: ['b', 'zzz'] })).toEqual([2]);
    expect(filtered({ since: new Date(200) })).toEqual([2]);
    expect(filtered({ before: new Date(200) })).toEqual([1]);
  });

  it('scores only the 32 rarest query terms, ties in the order the database collates them', () => {
    const index = new TenantTextIndex();
    const common = Array.from({ length: 33 }, (_, i) => `t${String(i).padStart(2, '0')}`);
    index.apply(doc(1, 1, common));
    index.apply(doc(2, 1, ['t32']));
    // t32 is held by 2 documents, the rest by one: the 32 rarest leave t32 out.
    expect(ids(index, query(common))).toEqual([1]);
  });

  it('compacts to the same answers without the dead slots', () => {
    const index = new TenantTextIndex();
    for (let round = 1; round <= 5; round += 1) {
      for (let id = 1; id <= 600; id += 1) {
        index.apply(doc(id, round, id % 3 === 0 ? ['helm', `w${round}`] : ['vault', `w${round}`]));
      }
    }
    expect(index.wantsCompaction).toBe(true);
    const compact = index.compact();
    expect(compact.slots).toBe(600);
    for (const q of [['helm'], ['vault', 'w5'], ['w1']]) {
      expect(compact.search(query(q, { k: 50 }))).toEqual(index.search(query(q, { k: 50 })));
    }
    compact.apply(doc(3, 4, ['nothing']));
    expect(ids(compact, query(['nothing']))).toEqual([]);
  });
});

describe('TenantTextIndex with pruning', () => {
  /** Exhaustive BM25 over the same documents: the answer pruning must not change. */
  function reference(docs: IndexedDoc[], lexemes: string[], k: number): [number, number][] {
    const n = docs.length;
    const avgdl = docs.reduce((sum, d) => sum + d.tfs.reduce((a, b) => a + b, 0), 0) / n;
    const dfs = new Map(lexemes.map((l) => [l, docs.filter((o) => o.lexemes.includes(l)).length]));
    const scored: [number, number][] = [];
    for (const d of docs) {
      let score = 0;
      let matched = false;
      for (const lexeme of lexemes) {
        const at = d.lexemes.indexOf(lexeme);
        if (at < 0) continue;
        matched = true;
        const df = dfs.get(lexeme) as number;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        const tf = d.tfs[at] / 10;
        const length = d.tfs.reduce((a, b) => a + b, 0);
        score += (idf * tf * 2.2) / (tf + 1.2 * (1 - 0.75 + (0.75 * length) / avgdl));
      }
      if (matched) scored.push([score, d.id]);
    }
    return scored.sort((a, b) => b[0] - a[0] || b[1] - a[1]).slice(0, k);
  }

  it('skips documents that cannot reach the top k and still answers exactly', () => {
    let seed = 11;
    const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const words = ['common', 'usual', 'frequent', 'rare1', 'rare2', 'rare3', 'mid1', 'mid2'];
    const docs: IndexedDoc[] = [];
    for (let id = 1; id <= 3000; id += 1) {
      const lexemes = ['common', 'usual', 'frequent'].filter(() => random() < 0.8);
      if (random() < 0.01) lexemes.push('rare1');
      if (random() < 0.02) lexemes.push('rare2');
      if (random() < 0.005) lexemes.push('rare3');
      if (random() < 0.3) lexemes.push('mid1');
      if (random() < 0.4) lexemes.push('mid2');
      if (lexemes.length === 0) lexemes.push('filler');
      docs.push(doc(id, 1, lexemes, { tfs: lexemes.map(() => 10 * (1 + Math.floor(random() * 3))) }));
    }
    const queries = [
      ['rare1', 'common'],
      ['rare3', 'rare1', 'usual', 'common', 'frequent'],
      ['rare2', 'mid1', 'mid2', 'common'],
      ['common', 'usual'],
      words,
    ];
    const scores = new Map<string, number[]>();
    for (const accumulate of MODES) {
      const index = new TenantTextIndex({ accumulate });
      for (const d of docs) index.apply(d);
      for (const q of queries) {
        for (const k of [1, 10, 30]) {
          const got = index.search(query(q, { k })).map((h): [number, number] => [h.score, h.memoryId]);
          const want = reference(docs, q, k);
          expect(
            got.map(([, id]) => id),
            `${accumulate}: ${q.join(' ')} k=${k}`,
          ).toEqual(want.map(([, id]) => id));
          got.forEach(([score], i) => expect(score).toBeCloseTo(want[i][0], 9));
          // Term at a time adds the same terms in the same order: the same scores to the last bit.
          const key = `${q.join(' ')} ${k}`;
          if (!scores.has(key))
            scores.set(
              key,
              got.map(([score]) => score),
            );
          expect(got.map(([score]) => score)).toEqual(scores.get(key));
        }
      }
    }
  });

  it('scores term at a time for most queries, document at a time when a rare term can fill the top k', () => {
    let seed = 3;
    const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const docs: IndexedDoc[] = [];
    for (let id = 1; id <= 20_000; id += 1) {
      const lexemes = ['common'];
      if (id % 500 === 0) lexemes.push('rare');
      if (random() < 0.5) lexemes.push('usual');
      docs.push(doc(id, 1, lexemes));
    }
    const spied = (accumulate: 'auto' | 'always' | 'never') => {
      const index = new TenantTextIndex({ accumulate });
      for (const d of docs) index.apply(d);
      const paths: string[] = [];
      const self = index as unknown as Record<
        'termAtATime' | 'documentAtATime',
        (...a: unknown[]) => unknown
      >;
      for (const path of ['termAtATime', 'documentAtATime'] as const) {
        const original = self[path].bind(index);
        self[path] = (...a: unknown[]) => (paths.push(path), original(...a));
      }
      return { index, paths };
    };
    const { index, paths } = spied('auto');
    // 40 rare documents among 30,000 postings: the rare list leads for k 30, not for k 50.
    index.search(query(['rare', 'common', 'usual'], { k: 30 }));
    index.search(query(['rare', 'common', 'usual'], { k: 50 }));
    index.search(query(['common', 'usual'], { k: 30 }));
    expect(paths).toEqual(['documentAtATime', 'termAtATime', 'termAtATime']);
    for (const accumulate of ['always', 'never'] as const) {
      const forced = spied(accumulate);
      forced.index.search(query(['rare', 'common'], { k: 30 }));
      expect(forced.paths).toEqual([accumulate === 'always' ? 'termAtATime' : 'documentAtATime']);
    }
  });

  it('answers exactly among readable live documents, with dead slots and ties broken by id', () => {
    let seed = 5;
    const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const vocabulary = ['alpha', 'beta', 'gamma', 'delta', 'omega', 'zeta'];
    const write = (id: number, seq: number): IndexedDoc => {
      // Few shapes, so many documents score the same and the id decides.
      const lexemes = vocabulary.filter(() => random() < 0.45);
      if (lexemes.length === 0) lexemes.push('alpha');
      return doc(id, seq, lexemes, {
        ownerId: random() < 0.5 ? OWNER : 'other',
        team: random() < 0.3,
        tfs: lexemes.map(() => (random() < 0.7 ? 10 : 14)),
      });
    };
    for (const accumulate of MODES) {
      seed = 5;
      answersAmongReadable(new TenantTextIndex({ accumulate }), accumulate);
    }

    function answersAmongReadable(index: TenantTextIndex, accumulate: string) {
      const current = new Map<number, IndexedDoc>();
      for (let id = 1; id <= 2500; id += 1) {
        const d = write(id, 1);
        current.set(id, d);
        index.apply(d);
      }
      // A search before the rewrites: its per-slot sums must grow with the slots the rewrites add.
      expect(index.search(query(['alpha'], { k: 5 }))).toHaveLength(5);
      // Rewrites and deletes leave dead slots in the postings the search must skip.
      for (let id = 1; id <= 2500; id += 7) {
        if (id % 2 === 0) {
          index.apply({ ...(current.get(id) as IndexedDoc), seq: 2, live: false });
          current.delete(id);
        } else {
          const d = write(id, 2);
          current.set(id, d);
          index.apply(d);
        }
      }
      const live = [...current.values()];
      const readable = live.filter((d) => d.ownerId === OWNER || d.team);
      for (const q of [
        ['alpha'],
        ['alpha', 'beta'],
        ['gamma', 'delta', 'omega'],
        vocabulary,
        ['zeta', 'nothing'],
      ]) {
        for (const k of [1, 7, 30, 200]) {
          // Statistics are over every live document; the answer only among the readable ones.
          const want = reference(live, q, live.length).filter(([, id]) => readable.some((d) => d.id === id));
          const got = index.search(query(q, { k }));
          expect(
            got.map((h) => h.memoryId),
            `${accumulate}: ${q.join(' ')} k=${k}`,
          ).toEqual(want.slice(0, k).map(([, id]) => id));
          got.forEach((h, i) => expect(h.score).toBeCloseTo(want[i][0], 9));
        }
      }
    }
  });
});

describe('TopK', () => {
  it('keeps the best k by score then id, descending', () => {
    const top = new TopK(3);
    for (const [score, id] of [
      [1, 1],
      [3, 2],
      [2, 3],
      [3, 4],
      [0.5, 5],
      [2, 6],
    ])
      top.offer(score, id);
    expect(top.sorted()).toEqual([
      [3, 4],
      [3, 2],
      [2, 6],
    ]);
  });
});
