import type { Client } from 'pg';
import { contentHash } from '@app/memories';
import { MemoryReadRepository } from '@app/memories/testing';
import { SyncFeedRepository } from '@app/sync/testing';
import { type Principal } from '@app/tenancy';
import { connectRaw } from '../harness/bench-database';
import { FloorPartsRecorder, RecallFloor, type FloorParts } from '../recall/raw-floor';
import { rawTx } from '../recall/raw-tx';
import { eventBatch, floorSessionFor, insertBatch } from '../sessions/event-ingest';
import { createFloor } from '../phases/phase-tools';
import type { BenchContext } from '../phases/bench-context';
import type { RecallWiring } from '../harness/recall-wiring';
import type { Call } from './closed-loop';
import { callerOf, QueryStream, type HttpShape } from './http-shape';
import { nextMemory, storeBody, type WorkloadName } from './http-workloads';

/** The floors' connections name themselves so their Postgres CPU can be told apart. */
export const FLOOR_APPLICATION = 'bench-floor';

/** What each floor runs, for the report. */
export const FLOOR_REQUESTS = {
  insert: 'one single-row `INSERT … RETURNING id` of the same kind of row',
  'hybrid recall floor':
    "one raw `embedBatch` of the text, `TenantTextIndex.search` on the tenant's loaded index (top 30), the vector statement, and the 10 served rows by id under the caller's RLS as the application role (the physical floor; parts and the SQL text leg fallback in the recall tables)",
  'list SELECTs': "the repository's count and page statements",
  'get SELECT': "the repository's statement for one visible memory",
  'sync SELECT': "the feed's one statement for a first page of 100",
  'multi-row INSERT': 'the same 10 events in one `INSERT`',
} as const;
export type FloorName = keyof typeof FLOOR_REQUESTS;

export const FLOOR_OF: Readonly<Partial<Record<WorkloadName, FloorName>>> = {
  store: 'insert',
  recall: 'hybrid recall floor',
  'mcp recall': 'hybrid recall floor',
  list: 'list SELECTs',
  get: 'get SELECT',
  sync: 'sync SELECT',
  'event ingest': 'multi-row INSERT',
};

/**
 * The least work each workload can do, through plain `pg` connections as the schema owner (no
 * transaction, no RLS context, but for the recall floor's row fetch), one connection per lane so the
 * floor runs at the same concurrency. The recall floor's untimed preparation (its index brought up
 * to date, the texts tokenised, the callers' shares read) happens before its cell starts.
 */
export class RawFloors {
  private readonly memories = new MemoryReadRepository();
  private readonly feed = new SyncFeedRepository();
  private readonly recallFloors = new Map<number, RecallFloor>();
  /** The parts of the last recall floor cell's calls (warm-up calls included). */
  private parts: FloorPartsRecorder | null = null;
  private readonly eventSessions = new Map<number, string>();
  /** Rows the insert floor wrote, removed after its cell so later cells search the loaded set only. */
  private inserted: string[] = [];

  private constructor(
    private readonly ctx: BenchContext,
    private readonly wiring: RecallWiring,
    private readonly lanes: readonly Client[],
  ) {}

  static async open(ctx: BenchContext, wiring: RecallWiring, lanes: number): Promise<RawFloors> {
    const clients = await Promise.all(
      Array.from({ length: lanes }, () => connectRaw(ctx.db.url, FLOOR_APPLICATION)),
    );
    return new RawFloors(ctx, wiring, clients);
  }

  /** The floor of `floor` over `shape`; `texts` are the recall texts the service side just used. */
  async call(floor: FloorName, shape: HttpShape, texts: readonly string[]): Promise<Call> {
    this.parts = null;
    switch (floor) {
      case 'insert':
        return async (slot, i) => {
          const principal = callerOf(shape, i);
          const body = storeBody(nextMemory(shape), `floor ${i}`, shape.visibility);
          const { rows } = await this.lanes[slot].query<{ id: string }>(
            `INSERT INTO memories (tenant_id, owner_id, content, category, tags, expanded_keywords, importance, project, content_hash, visibility)
             VALUES ($1, $2, $3, $4, string_to_array($5, ','), $6, $7, $8, $9, $10) RETURNING id`,
            [
              principal.tenantId,
              principal.userId,
              body.content,
              body.category,
              body.tags,
              body.expanded_keywords,
              body.importance,
              body.project ?? null,
              contentHash(body.content),
              body.visibility,
            ],
          );
          this.inserted.push(rows[0].id);
        };
      case 'hybrid recall floor': {
        const stream = new QueryStream(texts);
        await (await this.recallFloor(0)).prepare(shape.principals, texts);
        const parts = (this.parts = new FloorPartsRecorder());
        return async (slot, i) => {
          const principal = callerOf(shape, i);
          const plan = shape.plans.get(principal.userId) ?? 'exact';
          const floor = await this.recallFloor(slot);
          return parts.record(await floor.run({ principal, text: stream.take(), plan }));
        };
      }
      case 'list SELECTs':
        return async (slot, i) => {
          await this.memories.list(callerOf(shape, i), rawTx(this.lanes[slot]), { limit: 50, offset: 0 });
        };
      case 'get SELECT':
        return async (slot, i) => {
          const principal = callerOf(shape, i);
          const ids = shape.readable.get(principal.userId) ?? [];
          await this.memories.findVisibleOne(
            principal,
            rawTx(this.lanes[slot]),
            ids[(i * 7919) % ids.length],
          );
        };
      case 'sync SELECT':
        return async (slot, i) => {
          const from = { after: { xid: 0, memoryId: 0 }, recordsFrom: null, ownRowsFrom: 0 };
          await this.feed.read(callerOf(shape, i), rawTx(this.lanes[slot]), from, 100);
        };
      case 'multi-row INSERT':
        return async (slot, i) => {
          const principal = callerOf(shape, slot);
          const session = await this.eventSession(slot, principal);
          await insertBatch(this.lanes[slot], principal, session, eventBatch(`floor-${i}`));
        };
    }
  }

  /** Medians of the parts of the recall floor cell just run (null after any other floor). */
  takeParts(): FloorParts | null {
    const parts = this.parts?.medians() ?? null;
    this.parts = null;
    return parts;
  }

  /**
   * The text leg's Postgres fallback (`recall_text_search`) alone over `shape` on `texts`, one
   * lane: what a recall costs while its tenant's index loads (untimed settings, as the floor's).
   */
  async sqlTextLeg(shape: HttpShape, texts: readonly string[]): Promise<Call> {
    const stream = new QueryStream(texts);
    const floor = await this.recallFloor(0);
    return async (_slot, i) => floor.sqlTextLeg({ principal: callerOf(shape, i), text: stream.take() });
  }

  /**
   * Deletes what the insert floor wrote (raw rows: no index job or outbox row refers to them), and
   * vacuums: thousands of dead rows left to autovacuum made the recalls after them cost ~60% more
   * Postgres CPU, in the floor as much as in the service.
   */
  async removeInserted(): Promise<void> {
    const ids = this.inserted;
    this.inserted = [];
    if (ids.length === 0) return;
    await this.lanes[0].query(`DELETE FROM memories WHERE id = ANY($1::bigint[])`, [ids]);
    await this.lanes[0].query('VACUUM (ANALYZE) memories');
  }

  async close(): Promise<void> {
    await Promise.all(this.lanes.map((c) => c.end().catch(() => undefined)));
  }

  private async recallFloor(slot: number): Promise<RecallFloor> {
    let floor = this.recallFloors.get(slot);
    if (!floor) {
      floor = await createFloor({ ...this.ctx, pg: this.lanes[slot] }, this.wiring);
      this.recallFloors.set(slot, floor);
    }
    return floor;
  }

  private async eventSession(slot: number, principal: Principal): Promise<string> {
    let session = this.eventSessions.get(slot);
    if (!session) {
      session = await floorSessionFor(this.lanes[slot], principal);
      this.eventSessions.set(slot, session);
    }
    return session;
  }
}
