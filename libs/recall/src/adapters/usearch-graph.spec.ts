import { describe, expect, it } from 'vitest';
import { LARGE_GRAPH, TenantVectorIndex, type NearestHit } from '../domain/vector-index';
import { UsearchGraph } from './usearch-graph';

/** Small deterministic PRNG (mulberry32). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const D = 32;
const N = 6_000;

/** Clustered vectors, as embeddings of related texts are: ids 1..N. */
function corpus(seed: number): Map<number, number[]> {
  const random = prng(seed);
  const centers = Array.from({ length: 40 }, () => Array.from({ length: D }, () => random() * 2 - 1));
  const vectors = new Map<number, number[]>();
  for (let id = 1; id <= N; id += 1) {
    const c = centers[id % centers.length];
    vectors.set(
      id,
      c.map((x) => x + (random() * 2 - 1) * 0.6),
    );
  }
  return vectors;
}

function truth(vectors: Map<number, number[]>, query: number[], k: number, accepts: (id: number) => boolean) {
  const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return [...vectors]
    .filter(([id]) => accepts(id))
    .map(([id, v]) => ({ id, d: 1 - v.reduce((s, x, i) => s + x * query[i], 0) / (norm(v) * norm(query)) }))
    .sort((a, b) => a.d - b.d || a.id - b.id)
    .slice(0, k);
}

function build(vectors: Map<number, number[]>, exactWork?: number): TenantVectorIndex {
  const index = new TenantVectorIndex('m', D, exactWork);
  for (const [id, values] of vectors) index.apply({ id, seq: 1, values });
  index.attachGraph(new UsearchGraph(D));
  while (!index.buildStep(1_000));
  return index;
}

const search = (
  index: TenantVectorIndex,
  vectors: Map<number, number[]>,
  query: number[],
  k: number,
  accepts: (id: number) => boolean,
) =>
  index.search({
    vector: query,
    k,
    accepts,
    forEachAccepted: (visit) => {
      for (const id of vectors.keys()) if (accepts(id)) visit(id);
    },
    bound: [...vectors.keys()].filter(accepts).length,
  });

describe('TenantVectorIndex with a USearch graph', () => {
  const vectors = corpus(7);
  const index = build(vectors, 10_000);
  const random = prng(99);
  const queries = Array.from({ length: 40 }, () => Array.from({ length: D }, () => random() * 2 - 1));

  it('answers a large readable set from the graph with recall@30 of at least 0.95 against exact', () => {
    let found = 0;
    for (const query of queries) {
      const got = search(index, vectors, query, 30, () => true);
      expect(got?.plan).toBe('graph');
      const ids = new Set(got?.hits.map((h) => h.memoryId));
      found += truth(vectors, query, 30, () => true).filter((t) => ids.has(t.id)).length;
    }
    expect(found / (30 * queries.length)).toBeGreaterThanOrEqual(0.95);
  });

  it('re-scores graph candidates exactly: distances are the true ones, nearest first', () => {
    const query = queries[0];
    const got = search(index, vectors, query, 10, () => true)?.hits as NearestHit[];
    const exact = new Map(truth(vectors, query, N, () => true).map((t) => [t.id, t.d]));
    got.forEach((h) => expect(h.distance).toBeCloseTo(exact.get(h.memoryId) as number, 5));
    for (let i = 1; i < got.length; i += 1)
      expect(got[i].distance).toBeGreaterThanOrEqual(got[i - 1].distance);
  });

  it('never proposes what the pre-filter refuses, and scores a small readable set exactly', () => {
    const mine = (id: number) => id % 97 === 0; // 61 memories × 32 dimensions: exact
    for (const query of queries.slice(0, 10)) {
      const got = search(index, vectors, query, 10, mine);
      expect(got?.plan).toBe('exact');
      expect(got?.hits.map((h) => h.memoryId)).toEqual(truth(vectors, query, 10, mine).map((t) => t.id));
    }
  });

  it('falls back to the exact search when the graph cannot fill k from a selective filter', () => {
    const rare = (id: number) => id % 1_000 === 0; // 6 memories over a large bound
    const got = index.search({
      vector: queries[1],
      k: 5,
      accepts: rare,
      forEachAccepted: (visit) => {
        for (const id of vectors.keys()) if (rare(id)) visit(id);
      },
      bound: N,
    });
    expect(got?.hits.map((h) => h.memoryId)).toEqual(truth(vectors, queries[1], 5, rare).map((t) => t.id));
  });

  it('applies writes by position: an older copy loses, a purge removes, a zero vector is never near', () => {
    const small = new TenantVectorIndex('m', 2);
    small.apply({ id: 1, seq: 5, values: [1, 0] });
    small.apply({ id: 1, seq: 4, values: [0, 1] }); // older: ignored
    small.apply({ id: 2, seq: 5, values: [0, 1] });
    small.apply({ id: 3, seq: 5, values: [0, 0] });
    const all = (id: number) => id > 0;
    const run = () =>
      small
        .search({
          vector: [1, 0.1],
          k: 3,
          accepts: all,
          forEachAccepted: (visit) => [1, 2, 3].forEach(visit),
          bound: 3,
        })
        ?.hits.map((h) => h.memoryId);
    expect(run()).toEqual([1, 2]);
    small.remove(1, 6);
    small.apply({ id: 1, seq: 5, values: [1, 0] }); // a copy from before the purge: ignored
    expect(run()).toEqual([2]);
  });

  it('builds its graph in steps, taking writes made meanwhile', () => {
    const partial = new TenantVectorIndex('m', D, 0);
    for (const [id, values] of [...vectors].slice(0, 500)) partial.apply({ id, seq: 1, values });
    partial.attachGraph(new UsearchGraph(D));
    expect(partial.buildStep(100)).toBe(false);
    expect(
      partial.search({
        vector: queries[0],
        k: 5,
        accepts: () => true,
        forEachAccepted: () => {},
        bound: 500,
      }),
    ).toBeNull();
    partial.apply({ id: 999_999, seq: 2, values: queries[0] });
    while (!partial.buildStep(100));
    const got = partial.search({
      vector: queries[0],
      k: 1,
      accepts: () => true,
      forEachAccepted: () => {},
      bound: 501,
    });
    expect(got?.plan).toBe('graph');
    expect(got?.hits[0]).toEqual({ memoryId: 999_999, distance: expect.closeTo(0, 5) });
  });

  it('asks a graph of 500,000 vectors or more for a longer list of candidates', () => {
    /** A real graph that says it holds `claimed` vectors and records how many candidates it is asked for. */
    class Claiming extends UsearchGraph {
      readonly asked: number[] = [];
      constructor(private readonly claimed: number) {
        super(D);
      }
      override get size(): number {
        return Math.max(super.size, this.claimed);
      }
      override search(vector: Float32Array, count: number): number[] {
        this.asked.push(count);
        return super.search(vector, count);
      }
    }
    for (const [claimed, least] of [
      [LARGE_GRAPH - 1, 100],
      [LARGE_GRAPH, 400],
    ]) {
      const index = new TenantVectorIndex('m', D, 0);
      for (const [id, values] of [...vectors].slice(0, 2_000)) index.apply({ id, seq: 1, values });
      const graph = new Claiming(claimed);
      index.attachGraph(graph);
      while (!index.buildStep(1_000));
      for (const k of [10, 30, 200]) {
        const got = index.search({
          vector: queries[0],
          k,
          accepts: () => true,
          forEachAccepted: () => {},
          bound: 2_000,
        });
        expect(got?.plan).toBe('graph');
        expect(got?.hits).toHaveLength(k);
      }
      expect(graph.asked, `graph of ${claimed}`).toEqual([least, Math.max(120, least), 800]);
    }
  });

  it('scores exactly, with no graph, when few vectors are held however many memories the caller reads', () => {
    // Room for 10 distances; the caller reads 1,000 memories, of which 5 have a vector (the others are
    // not embedded yet, or were re-embedded as zero vectors): no graph is built for 5, none is needed.
    const few = new TenantVectorIndex('m', D, 10 * D);
    const held = [...vectors].slice(0, 8);
    for (const [id, values] of held) few.apply({ id, seq: 1, values });
    for (const [id] of held.slice(5)) few.apply({ id, seq: 2, values: Array.from({ length: D }, () => 0) });
    expect(few.size).toBe(5);
    const ids = [...vectors.keys()].slice(0, 1_000);
    const got = few.search({
      vector: queries[1],
      k: 3,
      accepts: () => true,
      forEachAccepted: (visit) => ids.forEach(visit),
      bound: ids.length,
    });
    expect(got?.plan).toBe('exact');
    const expected = truth(new Map(held.slice(0, 5)), queries[1], 3, () => true);
    expect(got?.hits.map((h) => h.memoryId)).toEqual(expected.map((t) => t.id));
  });
});
