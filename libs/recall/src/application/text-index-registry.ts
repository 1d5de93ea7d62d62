import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { Counter, Gauge, type Registry } from 'prom-client';
import { METRICS_REGISTRY } from '@app/observability';
import {
  READ_ONLY,
  requiredPosition,
  TENANT_WRITES,
  TransactionRunner,
  type TenantScope,
} from '@app/persistence';
import {
  TextIndexFeedRepository,
  type TenantAudiences,
  type TextIndexDelta,
} from '../adapters/text-index-feed.repository';
import { LexemeCache } from '../domain/query-lexemes';
import { graphsAvailable, UsearchGraph } from '../adapters/usearch-graph';
import { TenantTextIndex } from '../domain/text-index';
import { EXACT_WORK, TenantVectorIndex } from '../domain/vector-index';

/** The in-memory text index's limits (RECALL_TEXT_INDEX_MB). */
export interface TextIndexOptions {
  /** Heap all tenants' indexes may use together; 0 turns the index off. */
  readonly maxBytes: number;
  /** Memories read per statement while loading. */
  readonly pageSize: number;
  /** How long a tenant that failed to load (or did not fit) is searched in Postgres before trying again. */
  readonly retryAfterMs: number;
  /** Memory all tenants' vector indexes may use together (RECALL_VECTOR_INDEX_MB); 0 turns them off. */
  readonly vectorMaxBytes: number;
  /** Vectors added to a graph between two turns of the event loop while it builds. */
  readonly graphBatch: number;
  /** Most distances an exact vector search computes before the graph answers (EXACT_WORK). */
  readonly vectorExactWork: number;
  /**
   * How long after a refresh a recall may use the index without one (RECALL_INDEX_FRESH_MS), when
   * this process committed no write of the tenant since and knows every word of the query; 0: every
   * recall refreshes. Bounds how late another process's write, share or unshare is seen.
   */
  readonly freshMs: number;
}
export const TEXT_INDEX_OPTIONS = Symbol('TEXT_INDEX_OPTIONS');
export const DEFAULT_TEXT_INDEX_OPTIONS: TextIndexOptions = {
  maxBytes: 256 * 1024 * 1024,
  pageSize: 5_000,
  retryAfterMs: 60_000,
  vectorMaxBytes: 256 * 1024 * 1024,
  graphBatch: 64,
  vectorExactWork: EXACT_WORK,
  freshMs: 250,
};

/** Why a recall's text leg ran in Postgres instead of the index. */
export type TextIndexMiss = 'loading' | 'too_large' | 'failed' | 'disabled';

/**
 * Why a recall's vector leg ran in Postgres: the tenant's text index is not held (its pre-filter
 * decides what a caller may read), the vectors are loading or their graph building, or they do not fit.
 */
export type VectorIndexMiss = TextIndexMiss | 'building' | 'unavailable';

interface VectorEntry {
  readonly modelId: string;
  state: 'loading' | 'ready' | 'too_large' | 'failed';
  index: TenantVectorIndex;
  /** Every vector written below this position is applied. */
  position: number;
  retryAt: number;
  loaded: Promise<void>;
  /** When the last refresh that carried this index's vectors started (see TenantEntry). */
  refreshedAt: number;
}

interface TenantEntry {
  state: 'loading' | 'ready' | TextIndexMiss;
  index: TenantTextIndex;
  /** Every change below this position is applied. */
  position: number;
  bytes: number;
  retryAt: number;
  /** Settles when the load started for this entry ends (ready or not). */
  loaded: Promise<void>;
  /** The tenant's vectors of the model its recalls embed with, once asked for. */
  vectors: VectorEntry | null;
  /** When the last refresh started, and this process's write version of the tenant then. */
  refreshedAt: number;
  writeVersion: number;
  /** Every member's shares and tag rules as of the last refresh (null before the first). */
  audiences: TenantAudiences | null;
}

/** When a refresh started: what a fresh index is measured from. */
export interface RefreshStart {
  readonly at: number;
  readonly writeVersion: number;
}

/** What a refresh brings an index up to date with (`recall_index_refresh`, or a plain delta). */
export type IndexChanges = Pick<TextIndexDelta, 'horizon' | 'changed' | 'removed' | 'vectors'>;

/**
 * Each API process's text indexes, one per tenant that recalled lately: a derived read model of the
 * tenant's memories (migration 1763700000028). A tenant loads in the background on its first recall
 * (recall answers through Postgres meanwhile); a recall then brings it up to date in the same
 * statement that tokenises the query (`TextLeg`) — except while it is fresh (`fresh`): refreshed
 * less than `freshMs` ago with no write of the tenant committed in this process since. So a write
 * is found by the next recall in the process that made it, and in every other within `freshMs`.
 * Indexes share one memory budget; the least recently used leave first, and a tenant larger than
 * the whole budget is searched in Postgres.
 */
@Injectable()
export class TextIndexRegistry {
  private readonly logger = new Logger('TextIndex');
  /** In least-recently-used order: a recall moves its tenant to the end. */
  private readonly tenants = new Map<string, TenantEntry>();
  private readonly searches?: Counter<'source'>;
  private readonly vectorSearches?: Counter<'source'>;
  private readonly refreshes?: Counter<'result'>;
  /** This process's word → lexeme memory (see LexemeCache). */
  readonly lexemes = new LexemeCache();

  constructor(
    private readonly tx: TransactionRunner,
    private readonly feed: TextIndexFeedRepository,
    @Optional()
    @Inject(TEXT_INDEX_OPTIONS)
    private readonly options: TextIndexOptions = DEFAULT_TEXT_INDEX_OPTIONS,
    @Optional() @Inject(METRICS_REGISTRY) registry?: Registry,
  ) {
    if (registry && !registry.getSingleMetric('memsvc_recall_text_leg_total')) {
      this.searches = new Counter({
        name: 'memsvc_recall_text_leg_total',
        help: "Recalls' text legs by where they ran: the in-memory index, or Postgres while it loads or when it does not fit.",
        labelNames: ['source'],
        registers: [registry],
      });
      this.refreshes = new Counter({
        name: 'memsvc_recall_index_refresh_total',
        help: "Recalls served by a held index: 'refreshed' read what changed first (one statement), 'fresh' used it as it was (RECALL_INDEX_FRESH_MS).",
        labelNames: ['result'],
        registers: [registry],
      });
      const tenants = () => [...this.tenants.values()].filter((e) => e.state === 'ready');
      new Gauge({
        name: 'memsvc_recall_text_index_bytes',
        help: 'Approximate heap held by the in-memory text indexes of this process.',
        registers: [registry],
        collect() {
          this.set(tenants().reduce((sum, e) => sum + e.bytes, 0));
        },
      });
      this.vectorSearches = new Counter({
        name: 'memsvc_recall_vector_leg_total',
        help: "Recalls' vector legs by where they ran: the in-memory vector index, or Postgres (sql:<why>).",
        labelNames: ['source'],
        registers: [registry],
      });
      const vectorEntries = () =>
        [...this.tenants.values()].flatMap((e) => (e.vectors?.state === 'ready' ? [e.vectors] : []));
      new Gauge({
        name: 'memsvc_recall_vector_index_bytes',
        help: 'Approximate memory held by the in-memory vector indexes of this process (vectors and graphs).',
        registers: [registry],
        collect() {
          this.set(vectorEntries().reduce((sum, v) => sum + v.index.bytes, 0));
        },
      });
      new Gauge({
        name: 'memsvc_recall_text_index_tenants',
        help: 'Tenants whose text index this process holds.',
        registers: [registry],
        collect() {
          this.set(tenants().length);
        },
      });
    }
  }

  /**
   * The tenant's index when it is ready (and marks it used); otherwise why not, starting a load if
   * due — followed by the load of the tenant's vectors of `model` when one is given.
   */
  acquire(
    scope: TenantScope,
    model: { modelId: string; dimensions: number } | null = null,
  ): { entry: TenantEntry } | { miss: TextIndexMiss } {
    if (this.options.maxBytes <= 0) return { miss: 'disabled' };
    const entry = this.tenants.get(scope.tenantId);
    if (entry?.state === 'ready') {
      this.tenants.delete(scope.tenantId);
      this.tenants.set(scope.tenantId, entry);
      return { entry };
    }
    if (entry === undefined || (entry.state !== 'loading' && Date.now() >= entry.retryAt)) {
      this.startLoad({ tenantId: scope.tenantId, userId: scope.userId }, model);
      return { miss: 'loading' };
    }
    return { miss: entry.state as TextIndexMiss };
  }

  /**
   * The tenant's vector index of `modelId` beside a ready text index (and marks it wanted); otherwise
   * why not, starting a load if due.
   */
  acquireVectors(
    scope: TenantScope,
    entry: TenantEntry,
    model: { modelId: string; dimensions: number },
  ): { vectors: VectorEntry } | { miss: VectorIndexMiss } {
    if (this.options.vectorMaxBytes <= 0) return { miss: 'disabled' };
    const held = entry.vectors;
    if (held !== null && held.modelId === model.modelId) {
      if (held.state === 'ready') return { vectors: held };
      if (held.state === 'loading' || Date.now() < held.retryAt) return { miss: held.state };
    }
    this.startVectorLoad({ tenantId: scope.tenantId, userId: scope.userId }, entry, model);
    return { miss: 'loading' };
  }

  /**
   * The tenant's shares and tag rules when its index (and `vectors`, when given) may answer without
   * a refresh: one started less than `freshMs` ago, no write of the tenant committed in this
   * process since it started, and the request need not see a given write (a consistency token, or,
   * with read replicas, the caller's own recent write made through another process). Null: refresh
   * first.
   */
  fresh(scope: TenantScope, entry: TenantEntry, vectors: VectorEntry | null): TenantAudiences | null {
    if (this.options.freshMs <= 0 || entry.audiences === null) return null;
    // The request must see a given write (its own, made through another process, or a token's).
    if (requiredPosition() !== null) return null;
    if (Date.now() - entry.refreshedAt >= this.options.freshMs) return null;
    if (TENANT_WRITES.versionOf(scope.tenantId) !== entry.writeVersion) return null;
    if (vectors !== null && vectors.refreshedAt !== entry.refreshedAt) return null;
    return entry.audiences;
  }

  /** Taken just before a refresh is sent; `apply` dates the index with it. */
  refreshStart(scope: TenantScope): RefreshStart {
    return { at: Date.now(), writeVersion: TENANT_WRITES.versionOf(scope.tenantId) };
  }

  countedRefresh(result: 'refreshed' | 'fresh'): void {
    this.refreshes?.inc({ result });
  }

  /**
   * Brings an index up to date with a delta read in any snapshot (older copies lose to newer ones);
   * with `refreshed`, a refresh that started then and read the tenant's shares and tag rules.
   */
  apply(
    scope: TenantScope,
    entry: TenantEntry,
    delta: IndexChanges,
    vectors: VectorEntry | null = null,
    refreshed?: { readonly start: RefreshStart; readonly audiences: TenantAudiences },
  ): void {
    const now = Date.now();
    if (refreshed !== undefined && refreshed.start.at >= entry.refreshedAt) {
      entry.refreshedAt = refreshed.start.at;
      entry.writeVersion = refreshed.start.writeVersion;
      entry.audiences = refreshed.audiences;
    }
    for (const doc of delta.changed) entry.index.apply(doc, now);
    for (const gone of delta.removed) entry.index.remove(gone.id, gone.seq, now);
    entry.position = Math.max(entry.position, delta.horizon);
    if (delta.changed.length > 0 || delta.removed.length > 0) {
      if (entry.index.wantsCompaction) entry.index = entry.index.compact(now);
      entry.index.forgetRemovals(now);
      entry.bytes = entry.index.bytes;
      this.fitBudget(scope.tenantId);
    }
    // The delta carries vectors only for the index it was asked for.
    if (vectors !== null && entry.vectors === vectors) {
      for (const vector of delta.vectors) vectors.index.apply(vector);
      for (const gone of delta.removed) vectors.index.remove(gone.id, gone.seq, now);
      vectors.position = Math.max(vectors.position, delta.horizon);
      // Fresh with the text index only when this refresh is the one the text index is dated by.
      if (refreshed !== undefined && refreshed.start.at === entry.refreshedAt)
        vectors.refreshedAt = entry.refreshedAt;
      if (delta.removed.length > 0) vectors.index.forgetRemovals(now);
      if (
        vectors.state === 'ready' &&
        !vectors.index.answersExactly(vectors.index.size) &&
        !this.hasGraph(vectors)
      )
        this.buildGraph(scope.tenantId, vectors);
    }
  }

  counted(source: 'index' | 'sql'): void {
    this.searches?.inc({ source });
  }

  vectorCounted(source: string): void {
    this.vectorSearches?.inc({ source });
  }

  /**
   * Loads the tenant's index now if it is not held (benchmarks and tests warm up with it; requests
   * never wait for a load) and says whether it is ready.
   */
  async warm(scope: TenantScope): Promise<boolean> {
    const held = this.acquire(scope);
    if ('entry' in held) return true;
    await this.tenants.get(scope.tenantId)?.loaded;
    return this.tenants.get(scope.tenantId)?.state === 'ready';
  }

  /**
   * Loads the tenant's text index and its vectors of `model` now, graph included, if they are not
   * held (benchmarks and tests warm up with it) and says whether they are ready (with the vector index
   * turned off: whether the text index is).
   */
  async warmVectors(scope: TenantScope, model: { modelId: string; dimensions: number }): Promise<boolean> {
    if (!(await this.warm(scope))) return false;
    if (this.options.vectorMaxBytes <= 0) return true; // nothing to load: the vector leg runs in Postgres
    const entry = this.tenants.get(scope.tenantId);
    if (entry === undefined) return false;
    this.acquireVectors(scope, entry, model);
    const vectors = entry.vectors;
    if (vectors === null) return false;
    await vectors.loaded;
    while (this.building.has(vectors)) await new Promise((resolve) => setTimeout(resolve, 10));
    return vectors.state === 'ready';
  }

  private startLoad(scope: TenantScope, model: { modelId: string; dimensions: number } | null): void {
    const entry: TenantEntry = {
      state: 'loading',
      index: new TenantTextIndex(),
      position: 0,
      bytes: 0,
      retryAt: 0,
      loaded: Promise.resolve(),
      vectors: null,
      refreshedAt: -Infinity,
      writeVersion: -1,
      audiences: null,
    };
    this.tenants.set(scope.tenantId, entry);
    entry.loaded = this.load(scope, entry, model).catch((error: unknown) => {
      entry.state = 'failed';
      entry.index = new TenantTextIndex();
      entry.retryAt = Date.now() + this.options.retryAfterMs;
      this.logger.warn(
        { err: error, tenantId: scope.tenantId },
        'text index load failed; recall uses Postgres',
      );
    });
  }

  /**
   * Reads the tenant's live memories page by page, each page in a short transaction of its own that
   * first takes its server's horizon: a row a page missed (changed while the pages are read, or not
   * yet replayed by the replica that served the page) has a position at or above that page's
   * horizon, so the lowest of them is where the deltas start, and the first one brings it again.
   * Pages may be served by different servers (replicas, the primary): each is judged by its own.
   */
  private async load(
    scope: TenantScope,
    entry: TenantEntry,
    model: { modelId: string; dimensions: number } | null,
  ): Promise<void> {
    const started = Date.now();
    let position = Infinity;
    const index = new TenantTextIndex();
    for (let after = 0; ;) {
      const docs = await this.tx.inTenant(
        scope,
        async (tx) => {
          position = Math.min(position, await this.feed.horizon(tx));
          return this.feed.page(tx, after, this.options.pageSize);
        },
        READ_ONLY,
      );
      for (const doc of docs) index.apply(doc);
      if (this.tenants.get(scope.tenantId) !== entry) return; // evicted or reset meanwhile
      if (index.bytes > this.options.maxBytes) {
        entry.state = 'too_large';
        entry.retryAt = Date.now() + this.options.retryAfterMs;
        this.logger.warn(`tenant ${scope.tenantId} does not fit RECALL_TEXT_INDEX_MB; recall uses Postgres`);
        return;
      }
      if (docs.length < this.options.pageSize) break;
      after = docs[docs.length - 1].id;
    }
    entry.index = index;
    entry.position = position;
    entry.bytes = index.bytes;
    entry.state = 'ready';
    this.fitBudget(scope.tenantId);
    this.logger.log(
      `text index of tenant ${scope.tenantId}: ${index.documents} memories, ${Math.round(entry.bytes / 1048576)} MiB, ${Date.now() - started} ms`,
    );
    if (model !== null && this.options.vectorMaxBytes > 0 && entry.vectors === null)
      this.startVectorLoad(scope, entry, model);
  }

  /** Loads (again) the tenant's vectors of a model into a new entry beside its text index. */
  private startVectorLoad(
    scope: TenantScope,
    entry: TenantEntry,
    model: { modelId: string; dimensions: number },
  ): void {
    const vectors: VectorEntry = {
      modelId: model.modelId,
      state: 'loading',
      index: new TenantVectorIndex(model.modelId, model.dimensions, this.options.vectorExactWork),
      position: 0,
      retryAt: 0,
      loaded: Promise.resolve(),
      refreshedAt: -Infinity,
    };
    entry.vectors = vectors;
    vectors.loaded = this.loadVectors(scope, entry, vectors).catch((error: unknown) => {
      vectors.state = 'failed';
      vectors.index = new TenantVectorIndex(model.modelId, model.dimensions, this.options.vectorExactWork);
      vectors.retryAt = Date.now() + this.options.retryAfterMs;
      this.logger.warn(
        { err: error, tenantId: scope.tenantId },
        'vector index load failed; recall uses Postgres for its vector leg',
      );
    });
  }

  /**
   * Reads the tenant's vectors page by page from a position taken first (as `load`), then builds
   * their graph a batch at a time when the tenant is too large to score exactly. Exact searches are
   * answered from the end of the load; searches that need the graph wait for it in Postgres.
   */
  private async loadVectors(scope: TenantScope, entry: TenantEntry, vectors: VectorEntry): Promise<void> {
    const started = Date.now();
    // As `load`: the lowest horizon of the pages' own transactions.
    let position = Infinity;
    const index = vectors.index;
    for (let after = 0; ;) {
      const page = await this.tx.inTenant(
        scope,
        async (tx) => {
          position = Math.min(position, await this.feed.horizon(tx));
          return this.feed.vectorPage(tx, vectors.modelId, after, this.options.pageSize);
        },
        READ_ONLY,
      );
      for (const vector of page) index.apply(vector);
      if (entry.vectors !== vectors) return; // replaced or evicted meanwhile
      if (index.bytes > this.options.vectorMaxBytes) {
        vectors.state = 'too_large';
        vectors.index = new TenantVectorIndex(
          vectors.modelId,
          index.dimensions,
          this.options.vectorExactWork,
        );
        vectors.retryAt = Date.now() + this.options.retryAfterMs;
        this.logger.warn(
          `tenant ${scope.tenantId} does not fit RECALL_VECTOR_INDEX_MB; recall's vector leg uses Postgres`,
        );
        return;
      }
      if (page.length < this.options.pageSize) break;
      after = page[page.length - 1].id;
    }
    vectors.position = position;
    vectors.state = 'ready';
    this.fitVectorBudget(scope.tenantId);
    this.logger.log(
      `vector index of tenant ${scope.tenantId} (${vectors.modelId}): ${index.size} memories, ${Date.now() - started} ms`,
    );
    if (!index.answersExactly(index.size)) await this.buildGraph(scope.tenantId, vectors);
  }

  private hasGraph(vectors: VectorEntry): boolean {
    return vectors.index.graph !== null || this.building.has(vectors);
  }

  private readonly building = new Set<VectorEntry>();

  /** Fills a new graph with the held vectors, yielding to requests between batches. */
  private async buildGraph(tenantId: string, vectors: VectorEntry): Promise<void> {
    if (!graphsAvailable() || this.building.has(vectors)) return;
    this.building.add(vectors);
    try {
      const started = Date.now();
      const index = vectors.index;
      index.attachGraph(new UsearchGraph(index.dimensions));
      while (!index.buildStep(this.options.graphBatch)) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (vectors.index !== index) return;
      }
      this.fitVectorBudget(tenantId);
      this.logger.log(
        `vector graph of tenant ${tenantId}: ${index.size} memories, ${Date.now() - started} ms`,
      );
    } finally {
      this.building.delete(vectors);
    }
  }

  /** Drops the least recently used tenants' vector indexes (never `keep`'s) until all fit their budget. */
  private fitVectorBudget(keep: string): void {
    const held = (e: TenantEntry) => (e.vectors?.state === 'ready' ? e.vectors.index.bytes : 0);
    let total = [...this.tenants.values()].reduce((sum, e) => sum + held(e), 0);
    for (const [tenantId, entry] of this.tenants) {
      if (total <= this.options.vectorMaxBytes) return;
      if (tenantId === keep || entry.vectors === null) continue;
      total -= held(entry);
      entry.vectors = null;
    }
  }

  /** Evicts the least recently used ready indexes (never `keep`) until all fit the budget. */
  private fitBudget(keep: string): void {
    let total = [...this.tenants.values()].reduce((sum, e) => sum + (e.state === 'ready' ? e.bytes : 0), 0);
    for (const [tenantId, entry] of this.tenants) {
      if (total <= this.options.maxBytes) return;
      if (tenantId === keep || entry.state !== 'ready') continue;
      this.tenants.delete(tenantId);
      total -= entry.bytes;
    }
  }
}
