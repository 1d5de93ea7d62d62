import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { Counter, Gauge, type Registry } from 'prom-client';
import { METRICS_REGISTRY } from '@app/observability';
import { TransactionRunner, type TenantScope } from '@app/persistence';
import { TextIndexFeedRepository, type TextIndexDelta } from '../adapters/text-index-feed.repository';
import { TenantTextIndex } from '../domain/text-index';

/** The in-memory text index's limits (RECALL_TEXT_INDEX_MB). */
export interface TextIndexOptions {
  /** Heap all tenants' indexes may use together; 0 turns the index off. */
  readonly maxBytes: number;
  /** Memories read per statement while loading. */
  readonly pageSize: number;
  /** How long a tenant that failed to load (or did not fit) is searched in Postgres before trying again. */
  readonly retryAfterMs: number;
}
export const TEXT_INDEX_OPTIONS = Symbol('TEXT_INDEX_OPTIONS');
export const DEFAULT_TEXT_INDEX_OPTIONS: TextIndexOptions = {
  maxBytes: 256 * 1024 * 1024,
  pageSize: 5_000,
  retryAfterMs: 60_000,
};

/** Why a recall's text leg ran in Postgres instead of the index. */
export type TextIndexMiss = 'loading' | 'too_large' | 'failed' | 'disabled';

interface TenantEntry {
  state: 'loading' | 'ready' | TextIndexMiss;
  index: TenantTextIndex;
  /** Every change below this position is applied. */
  position: number;
  bytes: number;
  retryAt: number;
  /** Settles when the load started for this entry ends (ready or not). */
  loaded: Promise<void>;
}

/**
 * Each API process's text indexes, one per tenant that recalled lately: a derived read model of the
 * tenant's memories (migration 1763700000028). A tenant loads in the background on its first recall
 * (recall answers through Postgres meanwhile); each recall then brings it up to date in the same
 * statement that tokenises the query (`TextLeg`), so a write committed anywhere is found by the next
 * recall in every process. Indexes share one memory budget; the least recently used leave first,
 * and a tenant larger than the whole budget is searched in Postgres.
 */
@Injectable()
export class TextIndexRegistry {
  private readonly logger = new Logger('TextIndex');
  /** In least-recently-used order: a recall moves its tenant to the end. */
  private readonly tenants = new Map<string, TenantEntry>();
  private readonly searches?: Counter<'source'>;

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
      const tenants = () => [...this.tenants.values()].filter((e) => e.state === 'ready');
      new Gauge({
        name: 'memsvc_recall_text_index_bytes',
        help: 'Approximate heap held by the in-memory text indexes of this process.',
        registers: [registry],
        collect() {
          this.set(tenants().reduce((sum, e) => sum + e.bytes, 0));
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

  /** The tenant's index when it is ready (and marks it used); otherwise why not, starting a load if due. */
  acquire(scope: TenantScope): { entry: TenantEntry } | { miss: TextIndexMiss } {
    if (this.options.maxBytes <= 0) return { miss: 'disabled' };
    const entry = this.tenants.get(scope.tenantId);
    if (entry?.state === 'ready') {
      this.tenants.delete(scope.tenantId);
      this.tenants.set(scope.tenantId, entry);
      return { entry };
    }
    if (entry === undefined || (entry.state !== 'loading' && Date.now() >= entry.retryAt)) {
      this.startLoad({ tenantId: scope.tenantId, userId: scope.userId });
      return { miss: 'loading' };
    }
    return { miss: entry.state as TextIndexMiss };
  }

  /** Brings an index up to date with a delta read in any snapshot (older copies lose to newer ones). */
  apply(scope: TenantScope, entry: TenantEntry, delta: TextIndexDelta): void {
    const now = Date.now();
    for (const doc of delta.changed) entry.index.apply(doc, now);
    for (const gone of delta.removed) entry.index.remove(gone.id, gone.seq, now);
    entry.position = Math.max(entry.position, delta.horizon);
    if (delta.changed.length > 0 || delta.removed.length > 0) {
      if (entry.index.wantsCompaction) entry.index = entry.index.compact(now);
      entry.index.forgetRemovals(now);
      entry.bytes = entry.index.bytes;
      this.fitBudget(scope.tenantId);
    }
  }

  counted(source: 'index' | 'sql'): void {
    this.searches?.inc({ source });
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

  private startLoad(scope: TenantScope): void {
    const entry: TenantEntry = {
      state: 'loading',
      index: new TenantTextIndex(),
      position: 0,
      bytes: 0,
      retryAt: 0,
      loaded: Promise.resolve(),
    };
    this.tenants.set(scope.tenantId, entry);
    entry.loaded = this.load(scope, entry).catch((error: unknown) => {
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
   * Reads the tenant's live memories page by page, each page in a short transaction of its own. The
   * position is taken before the first page: a row that changes while the pages are read has a
   * position at or above it, so the first delta brings it again.
   */
  private async load(scope: TenantScope, entry: TenantEntry): Promise<void> {
    const started = Date.now();
    const position = await this.tx.inTenant(scope, (tx) => this.feed.horizon(tx));
    const index = new TenantTextIndex();
    for (let after = 0; ;) {
      const docs = await this.tx.inTenant(scope, (tx) => this.feed.page(tx, after, this.options.pageSize));
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
