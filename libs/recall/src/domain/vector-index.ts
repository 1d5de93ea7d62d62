import { TopK } from './top-k';

/** A memory's vector as the feed delivers it (migration 1763700000038). */
export interface IndexedVector {
  readonly id: number;
  /** Position of the vector's last write: a vector is applied only over an older one. */
  readonly seq: number;
  readonly values: ArrayLike<number>;
}

export interface NearestHit {
  readonly memoryId: number;
  /** Cosine distance (0 = same direction), as pgvector's `<=>`. */
  readonly distance: number;
}

/**
 * An approximate nearest-neighbour graph over unit vectors, keyed by memory id (the HNSW adapter,
 * `usearch-graph.ts`). It only proposes candidates: the index re-scores them from its own copy.
 */
export interface NearestGraph {
  add(id: number, vector: Float32Array): void;
  remove(id: number): void;
  /** Up to `count` ids, nearest first. */
  search(vector: Float32Array, count: number): number[];
  readonly size: number;
  /** Native memory held (approximate). */
  readonly bytes: number;
}

/** Where a search was answered: every readable vector scored, or candidates from the graph. */
export type NearestPlan = 'exact' | 'graph';

export interface NearestQuery {
  readonly vector: ArrayLike<number>;
  readonly k: number;
  /** The pre-filter (filters and read rule) over memory ids. */
  readonly accepts: (id: number) => boolean;
  /** Visits the id of every memory the pre-filter lets through (the exact plan's candidates). */
  readonly forEachAccepted: (visit: (id: number) => void) => void;
  /** At least as many memories as the pre-filter can let through. */
  readonly bound: number;
}

/**
 * Most work an exact search does (candidates × dimensions, about 1 ms here); above it the graph
 * answers. A graph's answer can differ from the exact one by a near neighbour; a set this small
 * (10,000 memories at 100 dimensions, 1,950 at 512) is scored exactly, as Postgres scored it.
 */
export const EXACT_WORK = 1_000_000;
/** Graph candidates fetched at first (× k, at least 100), and at most before an exact search. */
const GRAPH_FETCH_FACTOR = 4;
const GRAPH_FETCH_MIN = 100;
const GRAPH_FETCH_MAX = 4_000;
/**
 * A graph of this many vectors or more is asked for at least `LARGE_GRAPH_FETCH_MIN` candidates
 * (USearch walks a list as long as the count asked for): at 1,000,000 generated memories recall@10
 * against exact went from 0.950 to 0.986 for 0.7 ms more per search (`npm run bench:vector-graph`).
 */
export const LARGE_GRAPH = 500_000;
const LARGE_GRAPH_FETCH_MIN = 400;
/** How long a purged memory's position is remembered against an older snapshot's copy of it. */
const REMOVAL_MEMORY_MS = 120_000;

/**
 * One tenant's vectors of one model, held by each API process beside its text index (a derived
 * read model; Postgres stays the source of truth). Vectors are kept unit length in one Float32
 * pool, so cosine distance is one dot product; a search scores exactly with them:
 *
 * - a caller whose readable set is small, or an index holding few vectors (the smaller of the two ×
 *   dimensions ≤ EXACT_WORK), is answered by scoring every memory the pre-filter lets through —
 *   exact, as the SQL exact scan;
 * - otherwise the HNSW graph proposes the nearest `4k` (at least 100) ids, the pre-filter drops
 *   what the caller may not read, and the rest are re-scored from the pool. If fewer than k pass,
 *   the graph is asked for four times as many, up to 4,000, and past that the exact search answers.
 *
 * The order is the SQL one: distance, then id. Writes carry their position, so deltas read in
 * overlapping snapshots apply in any order.
 */
export class TenantVectorIndex {
  private readonly slotOf = new Map<number, number>();
  private readonly seqOf = new Map<number, number>();
  private readonly removed = new Map<number, { seq: number; at: number }>();
  private readonly free: number[] = [];
  private pool: Float32Array;
  private slots = 0;
  private graphState: NearestGraph | null = null;
  /** The graph being filled by `buildStep`; it replaces `graphState` when complete. */
  private building: NearestGraph | null = null;
  /** Ids written since the graph was attached and not in it yet (the build walks the pool first). */
  private graphBehind: number[] = [];

  constructor(
    readonly modelId: string,
    readonly dimensions: number,
    /** Most distances an exact search may compute (EXACT_WORK; tests lower it to exercise the graph). */
    private readonly exactWork = EXACT_WORK,
  ) {
    this.pool = new Float32Array(dimensions * 64);
  }

  /** Memories with a vector. */
  get size(): number {
    return this.slotOf.size;
  }

  get graph(): NearestGraph | null {
    return this.graphState;
  }

  /** Heap and native memory held (approximate). */
  get bytes(): number {
    return this.pool.byteLength + this.slotOf.size * 90 + (this.graphState?.bytes ?? 0);
  }

  /** Applies one vector of the feed; older than what the index holds: ignored. */
  apply(vector: IndexedVector): void {
    const held = this.seqOf.get(vector.id);
    if (held !== undefined && held >= vector.seq) return;
    const gone = this.removed.get(vector.id);
    if (gone !== undefined && gone.seq >= vector.seq) return;
    this.removed.delete(vector.id);
    const unit = normalised(vector.values, this.dimensions);
    this.seqOf.set(vector.id, vector.seq);
    if (unit === null) {
      // No direction (a zero vector): nothing is near it, as in SQL, where its distance is NaN.
      this.dropSlot(vector.id);
      return;
    }
    let slot = this.slotOf.get(vector.id);
    if (slot === undefined) {
      slot = this.free.pop() ?? this.slots++;
      if ((slot + 1) * this.dimensions > this.pool.length) {
        const next = new Float32Array(Math.max(this.pool.length * 2, (slot + 1) * this.dimensions));
        next.set(this.pool);
        this.pool = next;
      }
      this.slotOf.set(vector.id, slot);
    }
    this.pool.set(unit, slot * this.dimensions);
    if (this.graphState !== null) {
      this.graphState.remove(vector.id);
      this.graphState.add(vector.id, unit);
    } else if (this.building !== null) {
      this.graphBehind.push(vector.id);
    }
  }

  /** A memory removed outright (purged): `seq` is the position of its removal. */
  remove(id: number, seq: number, nowMs = Date.now()): void {
    const held = this.seqOf.get(id);
    if (held !== undefined && held > seq) return;
    this.dropSlot(id);
    this.seqOf.delete(id);
    this.removed.set(id, { seq, at: nowMs });
  }

  /** Forgets removal positions no snapshot still in flight can be older than. */
  forgetRemovals(nowMs = Date.now()): void {
    for (const [id, gone] of this.removed) if (nowMs - gone.at > REMOVAL_MEMORY_MS) this.removed.delete(id);
  }

  /** Whether a caller with `bound` readable memories is answered without the graph. */
  answersExactly(bound: number): boolean {
    return bound * this.dimensions <= this.exactWork;
  }

  /**
   * Starts filling `graph` with the held vectors: `buildStep` adds them a batch at a time (the
   * caller yields between batches), and vectors written meanwhile go in at once.
   */
  attachGraph(graph: NearestGraph): void {
    this.graphState = null;
    this.graphBehind = [...this.slotOf.keys()];
    this.building = graph;
  }

  /** Adds up to `count` held vectors to the graph being built; true when it is complete. */
  buildStep(count: number): boolean {
    const graph = this.building;
    if (graph === null) return this.graphState !== null;
    for (let n = 0; n < count && this.graphBehind.length > 0; n += 1) {
      const id = this.graphBehind.pop() as number;
      const slot = this.slotOf.get(id);
      if (slot === undefined) continue;
      graph.remove(id);
      graph.add(id, this.pool.subarray(slot * this.dimensions, (slot + 1) * this.dimensions));
    }
    if (this.graphBehind.length > 0) return false;
    this.graphState = graph;
    this.building = null;
    return true;
  }

  /**
   * The `k` nearest memories the pre-filter lets through, nearest first (ties by id), and how they
   * were found; null when the graph is needed and not built yet.
   */
  search(query: NearestQuery): { hits: NearestHit[]; plan: NearestPlan } | null {
    const unit = normalised(query.vector, this.dimensions);
    if (unit === null || query.k <= 0) return { hits: [], plan: 'exact' };
    // Exact scoring computes at most one distance per held vector: with few vectors (zero vectors and
    // memories not embedded yet hold none) it is cheap however many memories the caller reads, and the
    // graph, built only once the vectors outgrow exact scoring, is not needed.
    if (this.answersExactly(Math.min(query.bound, this.size))) {
      return { hits: this.exact(unit, query), plan: 'exact' };
    }
    const graph = this.graphState;
    if (graph === null) return null;
    const least = graph.size >= LARGE_GRAPH ? LARGE_GRAPH_FETCH_MIN : GRAPH_FETCH_MIN;
    for (let count = Math.max(query.k * GRAPH_FETCH_FACTOR, least); ; count *= GRAPH_FETCH_FACTOR) {
      const wanted = Math.min(count, graph.size);
      const top = new TopK(query.k);
      for (const id of graph.search(unit, wanted)) {
        if (query.accepts(id)) this.offer(top, unit, id);
      }
      if (top.size >= query.k || wanted >= graph.size) return { hits: hitsOf(top), plan: 'graph' };
      if (count >= GRAPH_FETCH_MAX) return { hits: this.exact(unit, query), plan: 'exact' };
    }
  }

  private exact(unit: Float32Array, query: NearestQuery): NearestHit[] {
    const top = new TopK(query.k);
    query.forEachAccepted((id) => this.offer(top, unit, id));
    return hitsOf(top);
  }

  /** Offers a memory's similarity to the top k (ids negated: ties go to the smaller id, as in SQL). */
  private offer(top: TopK, unit: Float32Array, id: number): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    const pool = this.pool;
    const base = slot * this.dimensions;
    let dot = 0;
    for (let d = 0; d < this.dimensions; d += 1) dot += unit[d] * pool[base + d];
    top.offer(dot, -id);
  }

  private dropSlot(id: number): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    this.slotOf.delete(id);
    this.free.push(slot);
    this.graphState?.remove(id);
    this.building?.remove(id);
  }
}

function hitsOf(top: TopK): NearestHit[] {
  return top.sorted().map(([similarity, negId]) => ({ memoryId: -negId, distance: 1 - similarity }));
}

/** The vector scaled to unit length (null: zero, wrong length or not finite). */
function normalised(values: ArrayLike<number>, dimensions: number): Float32Array | null {
  if (values.length !== dimensions) return null;
  let norm = 0;
  for (let d = 0; d < dimensions; d += 1) norm += values[d] * values[d];
  if (!(norm > 0) || !Number.isFinite(norm)) return null;
  const scale = 1 / Math.sqrt(norm);
  const unit = new Float32Array(dimensions);
  for (let d = 0; d < dimensions; d += 1) unit[d] = values[d] * scale;
  return unit;
}
