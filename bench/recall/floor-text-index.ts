import type { Client } from 'pg';
import { type Principal } from '@app/tenancy';
import {
  TenantTextIndex,
  TenantVectorIndex,
  TextIndexFeedRepository,
  UsearchGraph,
  type NearestHit,
  type NearestPlan,
  type TextAudience,
} from '@app/recall/testing';
import { inCallerContext, rawTx } from './raw-tx';

/** What holding one tenant's text index costs: its heap and how long it took to load. */
export interface TextIndexLoad {
  readonly memories: number;
  /** `TenantTextIndex.bytes`: the typed arrays plus the maps' per-entry costs. */
  readonly bytes: number;
  /** The feed read page by page over one connection plus building the index, as a process's load does. */
  readonly loadMs: number;
}

/** One tenant's text index in a phase: the app's load time and the floor copy's size and load. */
export interface TextIndexUse {
  /** The app's `TextIndexRegistry.warm` on the cold tenant (null: not loaded then, or no index). */
  readonly appLoadMs: number | null;
  readonly floor: TextIndexLoad | null;
}

interface HeldIndex {
  index: TenantTextIndex;
  /** Every change below this position is applied (as `TextIndexRegistry` keeps it). */
  position: number;
  readonly load: TextIndexLoad;
  /** The tenant's vectors of the active model with their graph, as an API process holds them. */
  readonly vectors: TenantVectorIndex | null;
  vectorPosition: number;
  readonly vectorLoad: VectorIndexLoad | null;
}

/** What holding one tenant's vectors costs: memory, and the load and graph build times. */
export interface VectorIndexLoad {
  readonly vectors: number;
  readonly bytes: number;
  readonly loadMs: number;
  readonly graphMs: number;
}

/** The registry's page size, so the load reads the feed in the same statements. */
const PAGE_SIZE = 5_000;

/**
 * The floor's own copy of each tenant's in-memory text index: loaded from the same feed an API
 * process loads from (`recall_text_index_page`), built by the same `TenantTextIndex`, and brought up
 * to date with `recall_text_index_delta` before each measured batch, all untimed. What the floor
 * times is `search` alone — the tight in-process top-k the index leg cannot beat — with the query's
 * lexemes and the caller's shares read beforehand, because the service reads those in the one
 * statement its text leg needs anyway.
 */
export class FloorTextIndexes {
  private readonly feed = new TextIndexFeedRepository();
  private readonly tenants = new Map<string, HeldIndex>();
  private readonly lexemes = new Map<string, readonly string[]>();
  private readonly audiences = new Map<string, TextAudience>();

  constructor(
    private readonly appRole: string,
    private readonly bm25: { readonly k1: number; readonly b: number },
    /** The model whose vectors the floor holds beside the text index (null: text only). */
    private readonly model: { readonly id: string; readonly dimensions: number } | null = null,
  ) {}

  /**
   * Loads each caller's tenant (or brings it up to date), reads each caller's shares once, and
   * tokenises the texts not seen yet in one statement. Untimed: call it before the timed loop.
   */
  async prepare(pg: Client, callers: readonly Principal[], texts: readonly string[]): Promise<void> {
    const refreshed = new Set<string>();
    for (const principal of callers) {
      const { tenantId, userId } = principal;
      if (!this.tenants.has(tenantId)) this.tenants.set(tenantId, await this.load(pg, principal));
      if (refreshed.has(tenantId) && this.audiences.has(userId)) continue;
      await this.refresh(pg, principal);
      refreshed.add(tenantId);
    }
    const unseen = [...new Set(texts)].filter((t) => !this.lexemes.has(t));
    if (unseen.length === 0) return;
    // As recall_index_refresh does: Postgres' own parser and stemmer, in byte order.
    const { rows } = await pg.query<{ text: string; lexemes: string[] }>(
      `SELECT t AS text, ARRAY(SELECT x FROM unnest(tsvector_to_array(to_tsvector('english', t))) x ORDER BY x COLLATE "C") AS lexemes
         FROM unnest($1::text[]) t`,
      [unseen],
    );
    for (const row of rows) this.lexemes.set(row.text, row.lexemes);
  }

  /** Drops the tenant's index, so the next `prepare` loads (and times) it afresh at the data's new size. */
  forget(tenantId: string): void {
    this.tenants.delete(tenantId);
  }

  /** The load of the tenant's index, once loaded. */
  loadOf(tenantId: string): TextIndexLoad | undefined {
    return this.tenants.get(tenantId)?.load;
  }

  /** Whether the floor holds vectors beside the text indexes. */
  get holdsVectors(): boolean {
    return this.model !== null;
  }

  /** The vector index's load, once loaded. */
  vectorLoadOf(tenantId: string): VectorIndexLoad | null | undefined {
    return this.tenants.get(tenantId)?.vectorLoad;
  }

  /**
   * The caller's `k` nearest on the tenant's vector index (the pre-filter as recall builds it): the
   * call the floor times for the vector leg. Null when the floor holds no vectors.
   */
  nearest(
    principal: Principal,
    vector: ArrayLike<number>,
    k: number,
    nowMs = Date.now(),
  ): { hits: NearestHit[]; plan: NearestPlan } | null {
    const held = this.tenants.get(principal.tenantId);
    const audience = this.audiences.get(principal.userId);
    if (!held || !audience) throw new Error('floor vector index not prepared');
    if (held.vectors === null) return null;
    const index = held.index;
    const read = { filter: {}, audience, nowMs };
    const accepts = index.accepting(read);
    if (accepts === null) return { hits: [], plan: 'exact' };
    return held.vectors.search({
      vector,
      k,
      accepts,
      forEachAccepted: (visit) => index.forEachAccepted(read, visit),
      bound: index.readableBound(audience),
    });
  }

  /** The caller's top `k` on the tenant's index: the call the floor times. */
  search(principal: Principal, text: string, k: number, nowMs = Date.now()) {
    const held = this.tenants.get(principal.tenantId);
    const lexemes = this.lexemes.get(text);
    const audience = this.audiences.get(principal.userId);
    if (!held || !lexemes || !audience) throw new Error(`floor text index not prepared for "${text}"`);
    return held.index.search({
      lexemes,
      k,
      k1: this.bm25.k1,
      b: this.bm25.b,
      filter: {},
      audience,
      nowMs,
    });
  }

  /** As `TextIndexRegistry` loads: the horizon first, then the live memories page by page. */
  private async load(pg: Client, principal: Principal): Promise<HeldIndex> {
    const started = performance.now();
    const position = await inCallerContext(pg, principal, this.appRole, () => this.feed.horizon(rawTx(pg)));
    const index = new TenantTextIndex();
    for (let after = 0; ;) {
      const docs = await inCallerContext(pg, principal, this.appRole, () =>
        this.feed.page(rawTx(pg), after, PAGE_SIZE),
      );
      for (const doc of docs) index.apply(doc);
      if (docs.length < PAGE_SIZE) break;
      after = docs[docs.length - 1].id;
    }
    const load = { memories: index.documents, bytes: index.bytes, loadMs: performance.now() - started };
    if (this.model === null)
      return { index, position, load, vectors: null, vectorPosition: 0, vectorLoad: null };
    const vectorStarted = performance.now();
    const vectorPosition = await inCallerContext(pg, principal, this.appRole, () =>
      this.feed.horizon(rawTx(pg)),
    );
    const vectors = new TenantVectorIndex(this.model.id, this.model.dimensions);
    for (let after = 0; ;) {
      const page = await inCallerContext(pg, principal, this.appRole, () =>
        this.feed.vectorPage(rawTx(pg), this.model?.id ?? '', after, PAGE_SIZE),
      );
      for (const vector of page) vectors.apply(vector);
      if (page.length < PAGE_SIZE) break;
      after = page[page.length - 1].id;
    }
    const loaded = performance.now();
    // As the registry builds it when the tenant is too large to score exactly (here in one go).
    if (!vectors.answersExactly(vectors.size)) {
      vectors.attachGraph(new UsearchGraph(this.model.dimensions));
      while (!vectors.buildStep(10_000));
    }
    const vectorLoad = {
      vectors: vectors.size,
      bytes: vectors.bytes,
      loadMs: loaded - vectorStarted,
      graphMs: performance.now() - loaded,
    };
    return { index, position, load, vectors, vectorPosition, vectorLoad };
  }

  /** What changed since the held position (as a recall's delta applies it), and the caller's shares. */
  private async refresh(pg: Client, principal: Principal): Promise<void> {
    const held = this.tenants.get(principal.tenantId) as HeldIndex;
    const delta = await inCallerContext(pg, principal, this.appRole, () =>
      this.feed.delta(
        rawTx(pg),
        held.position,
        '',
        held.vectors ? { modelId: held.vectors.modelId, after: held.vectorPosition } : null,
      ),
    );
    for (const doc of delta.changed) held.index.apply(doc);
    for (const gone of delta.removed) held.index.remove(gone.id, gone.seq);
    if (held.vectors) {
      for (const vector of delta.vectors) held.vectors.apply(vector);
      for (const gone of delta.removed) held.vectors.remove(gone.id, gone.seq);
      held.vectorPosition = Math.max(held.vectorPosition, delta.horizon);
      if (!held.vectors.answersExactly(held.vectors.size) && held.vectors.graph === null) {
        held.vectors.attachGraph(new UsearchGraph(held.vectors.dimensions));
        while (!held.vectors.buildStep(10_000));
      }
    }
    if (held.index.wantsCompaction) held.index = held.index.compact();
    held.position = Math.max(held.position, delta.horizon);
    this.audiences.set(principal.userId, {
      userId: principal.userId,
      admin: principal.scopes.includes('admin'),
      shared: delta.shared,
      tagRules: delta.tagRules,
    });
  }
}
