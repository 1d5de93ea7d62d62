import { type VectorPlan } from '@app/recall/testing';
import { type Principal } from '@app/tenancy';
import { generateMemories, generateQueries, take, type GeneratedMemory } from '../corpus/memory-generator';
import { createBenchKeys, createBenchTenant } from '../harness/bench-tenant';
import { bulkLoadMemories, withVectorIndexesRebuilt } from '../harness/bulk-loader';
import type { RecallWiring } from '../harness/recall-wiring';
import type { BenchContext } from '../phases/bench-context';
import { planLookup } from '../phases/phase-tools';

/** One data shape as the HTTP workloads see it: who calls, with which key, over which rows. */
export interface HttpShape {
  readonly label: string;
  readonly principals: readonly Principal[];
  /** user id → plaintext API key */
  readonly keys: ReadonlyMap<string, string>;
  /** user id → ids of live memories that user may read (for `GET /api/memories/:id`) */
  readonly readable: ReadonlyMap<string, readonly number[]>;
  /** What a store in this shape gets (the floor inserts the same). */
  readonly visibility: 'private' | 'team';
  /** Memories each caller reads (what list counts and recall searches). */
  readonly visiblePerUser: number;
  /** user id → the vector plan the repository picks for that caller (asked before the load runs) */
  readonly plans: ReadonlyMap<string, VectorPlan>;
  /** Unseen recall texts, handed out once each so no recall hits the query cache. */
  readonly queries: QueryStream;
  /** Fresh memories to store, never stored before in this shape's tenant. */
  readonly stores: Iterator<GeneratedMemory>;
}

export interface ShapeSpec {
  readonly slug: string;
  readonly label: string;
  readonly users: number;
  readonly memories: number;
  readonly visibility: 'private' | 'team';
  readonly seed: number;
}

/** Texts handed out in order; `since(mark)` replays what was handed out after a `mark()`. */
export class QueryStream {
  private next = 0;
  /** Times a text had to be reused because the stream ran dry (those recalls may hit the cache). */
  reused = 0;

  constructor(private readonly texts: readonly string[]) {}

  /** Distinct texts the stream holds. */
  get size(): number {
    return this.texts.length;
  }

  take(): string {
    if (this.next >= this.texts.length) this.reused += 1;
    return this.texts[this.next++ % this.texts.length];
  }

  mark(): number {
    return this.next;
  }

  since(mark: number): readonly string[] {
    const taken = Array.from(
      { length: this.next - mark },
      (_, i) => this.texts[(mark + i) % this.texts.length],
    );
    return taken.length > 0 ? taken : this.texts.slice(0, 1);
  }
}

/**
 * Creates each shape's tenant, members and keys and loads its memories in bulk (embedded by the real
 * model), in the state the API plus the index job would leave them; the HNSW index is rebuilt once
 * for all of them.
 */
export async function prepareShapes(
  ctx: BenchContext,
  wiring: RecallWiring,
  specs: readonly ShapeSpec[],
  queryCount: number,
): Promise<HttpShape[]> {
  const embedder = await wiring.embedders.get(ctx.active.id);
  const { result: loaded } = await withVectorIndexesRebuilt(
    ctx.pg,
    async () => {
      const tenants = [];
      for (const spec of specs) {
        const principals = await createBenchTenant(ctx.pg, { slug: spec.slug, users: spec.users });
        const keys = await createBenchKeys(ctx.pg, principals);
        ctx.log(`http: loading ${spec.memories} memories for ${spec.label}`);
        const corpus = generateMemories({ count: spec.memories * 2, users: spec.users, seed: spec.seed });
        await bulkLoadMemories(ctx.pg, {
          memories: take(corpus, spec.memories),
          principals,
          embedder,
          model: ctx.active,
          visibility: spec.visibility,
        });
        // The rest of the same corpus: same style, contents the tenant does not hold yet.
        tenants.push({ ...spec, principals, keys, stores: corpus });
      }
      return tenants;
    },
    ctx.services,
  );
  const shapes: HttpShape[] = [];
  for (const tenant of loaded) shapes.push(await describeShape(ctx, wiring, tenant, queryCount));
  return shapes;
}

/** A tenant already loaded (e.g. by the in-process team run) as the HTTP workloads see it. */
export async function describeShape(
  ctx: BenchContext,
  wiring: RecallWiring,
  loaded: Pick<ShapeSpec, 'label' | 'visibility' | 'seed' | 'users'> & {
    readonly principals: readonly Principal[];
    readonly keys: ReadonlyMap<string, string>;
    /** Memories to store, none of them in the tenant yet. */
    readonly stores: Iterator<GeneratedMemory>;
  },
  queryCount: number,
): Promise<HttpShape> {
  const { principals } = loaded;
  const { rows } = await ctx.pg.query<{ id: string; owner_id: string }>(
    `SELECT id::text, owner_id::text FROM memories WHERE tenant_id = $1 AND deleted_at IS NULL`,
    [principals[0].tenantId],
  );
  const all = rows.map((r) => Number(r.id));
  const own = new Map<string, number[]>();
  for (const r of rows) {
    const ids = own.get(r.owner_id);
    if (ids) ids.push(Number(r.id));
    else own.set(r.owner_id, [Number(r.id)]);
  }
  const readable = new Map(
    principals.map((p) => [p.userId, loaded.visibility === 'team' ? all : (own.get(p.userId) ?? [])]),
  );
  const texts = generateQueries({
    count: queryCount,
    users: loaded.users,
    seed: loaded.seed + 1,
    exclude: ctx.usedQueries,
  }).map((q) => q.text);
  texts.forEach((t) => ctx.usedQueries.add(t));
  const { planOf } = planLookup(ctx, wiring);
  const plans = new Map<string, VectorPlan>();
  for (const p of principals) plans.set(p.userId, await planOf(p));
  return {
    label: loaded.label,
    principals,
    keys: loaded.keys,
    readable,
    plans,
    visibility: loaded.visibility,
    visiblePerUser: loaded.visibility === 'team' ? all.length : Math.round(all.length / principals.length),
    queries: new QueryStream(texts),
    stores: loaded.stores,
  };
}

/** A caller for call `i`: spread over the members so no one member's rows or locks dominate. */
export function callerOf(shape: HttpShape, i: number): Principal {
  return shape.principals[i % shape.principals.length];
}

export function keyOf(shape: HttpShape, principal: Principal): string {
  const key = shape.keys.get(principal.userId);
  if (!key) throw new Error(`no API key for ${principal.username}`);
  return key;
}
