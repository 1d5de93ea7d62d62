import type { Client } from 'pg';
import { type Principal } from '@app/tenancy';
import { TenantTextIndex, TextIndexFeedRepository, type TextAudience } from '@app/recall/testing';
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
    // As recall_text_index_delta does: Postgres' own parser and stemmer, in the collation's order.
    const { rows } = await pg.query<{ text: string; lexemes: string[] }>(
      `SELECT t AS text, ARRAY(SELECT x FROM unnest(tsvector_to_array(to_tsvector('english', t))) x ORDER BY x) AS lexemes
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
    return { index, position, load };
  }

  /** What changed since the held position (as a recall's delta applies it), and the caller's shares. */
  private async refresh(pg: Client, principal: Principal): Promise<void> {
    const held = this.tenants.get(principal.tenantId) as HeldIndex;
    const delta = await inCallerContext(pg, principal, this.appRole, () =>
      this.feed.delta(rawTx(pg), held.position, ''),
    );
    for (const doc of delta.changed) held.index.apply(doc);
    for (const gone of delta.removed) held.index.remove(gone.id, gone.seq);
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
