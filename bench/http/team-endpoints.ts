import type { Client } from 'pg';
import { type Principal } from '@app/tenancy';
import { generateMemories } from '../corpus/memory-generator';
import { SeededRandom } from '../corpus/seeded-random';
import { connectRaw } from '../harness/bench-database';
import { measurePostgresMemory, type PostgresMemory } from '../harness/footprint';
import type { RecallWiring } from '../harness/recall-wiring';
import { startServiceProcesses } from '../harness/service-processes';
import type { LatencySummary } from '../metrics';
import type { BenchContext } from '../phases/bench-context';
import { ApiClient } from './api-client';
import { runClosedLoop, type Call, type LoadResult } from './closed-loop';
import { describeShape, keyOf, type HttpShape } from './http-shape';
import { nextMemory, storeBody } from './http-workloads';
import { warmApiTextIndexes } from './index-warmup';
import { rssMb, RssPeaks, scrapeHeap, type HeapReading } from './process-usage';
import { FLOOR_APPLICATION, RawFloors } from './raw-floors';

export const TEAM_LIST_LIMIT = 50;
export const TEAM_SYNC_LIMIT = 100;
/** The largest sync page (`SYNC_PAGE_MAX`): how the copy is caught up to get a recent cursor. */
const SYNC_CATCH_UP_LIMIT = 5000;
/** Changes a teammate makes after the member's copy caught up: what the incremental page carries. */
export const SYNC_INCREMENT = 20;
/** A 1M-memory tenant's text and vector indexes take minutes to load into a fresh API process. */
const INDEX_LOAD_DEADLINE_MS = 15 * 60_000;

export const TEAM_ENDPOINTS = [
  'list',
  'list, later page',
  'get',
  'sync, first page',
  'sync, incremental',
  'store',
] as const;
export type TeamEndpoint = (typeof TEAM_ENDPOINTS)[number];

/** The physical floor of each endpoint, for the report: the least `pg` work that answers the same. */
export const TEAM_FLOORS: Readonly<Record<TeamEndpoint, string>> = {
  list: `one prepared statement as the schema owner: the page's ids by an ordered index scan of the team's live rows (\`ORDER BY importance DESC, created_at DESC, id DESC LIMIT ${TEAM_LIST_LIMIT}\`), those rows by id, and the \`total\` the answer carries (\`count(*)\` of the team's live rows)`,
  'list, later page': 'the same with the page’s `OFFSET`',
  get: 'one row by primary key (`WHERE id = $1`), prepared',
  'sync, first page': `the team's rows in change order from the start: an index scan \`ORDER BY change_seq, id LIMIT ${TEAM_SYNC_LIMIT + 1}\` (one more tells \`has_more\`), prepared`,
  'sync, incremental': 'the same after the position the cursor stands for (`(change_seq, id) > (…)`)',
  store: 'one single-row `INSERT … RETURNING id` of the same kind of row (removed after the cell)',
};

export interface TeamEndpointRow {
  readonly endpoint: TeamEndpoint;
  /** What the service side sent (the member's key, concurrency 1). */
  readonly request: string;
  readonly service: LoadResult;
  readonly floor: LoadResult;
}

/** One built process's memory in MB: after start, with the tenant's indexes loaded, the peak, its heap. */
export interface ServiceMemory {
  readonly rssIdle: number;
  readonly rssLoaded: number;
  readonly rssPeak: number;
  /** V8 heap from its `/metrics` after the runs (null: not answered). */
  readonly heap: HeapReading | null;
}

export interface TeamEndpoints {
  /** The member whose key every call used. */
  readonly member: string;
  readonly secondsPerCell: number;
  readonly rows: readonly TeamEndpointRow[];
  /** A new copy's whole feed, paged at the largest page, to reach a recent cursor. */
  readonly syncCatchUp: { readonly pages: number; readonly items: number; readonly ms: number };
  /** Where a service answer and its floor did not hold the same rows (none expected). */
  readonly warnings: readonly string[];
  /** `count(*)` of the team's live rows alone: the `total` of every full list page. */
  readonly listCount: LatencySummary;
  /** The built API process's time from the first recall to one served by its indexes (null: not in time). */
  readonly apiIndexLoadMs: number | null;
  readonly memory: {
    readonly api: ServiceMemory;
    readonly worker: ServiceMemory;
    /** This process: the in-process API and worker of the recall runs, the floor's copies, the loader. */
    readonly bench: { readonly rss: number; readonly heapUsed: number; readonly heapTotal: number };
    readonly postgres: PostgresMemory;
  };
}

export interface TeamEndpointOptions {
  readonly principals: readonly Principal[];
  readonly keys: ReadonlyMap<string, string>;
  readonly label: string;
  readonly seconds: number;
  /** Called before the built processes start (stops the in-process worker: one worker per queue). */
  readonly beforeStart: () => Promise<void>;
}

interface SyncPage {
  readonly memories: readonly unknown[];
  readonly tombstones: readonly unknown[];
  readonly next_cursor: string;
  readonly has_more: boolean;
}

const MB = 1024 * 1024;
const LIVE_TEAM = `tenant_id = $1 AND visibility = 'team' AND deleted_at IS NULL`;
const ROW_COLUMNS = `m.id, m.content, m.category, m.tags, m.expanded_keywords, m.importance, m.project,
  m.visibility, m.owner_id, m.created_at, m.updated_at`;
const LIST_FLOOR_SQL = `
  WITH page AS (SELECT id, importance, created_at FROM memories WHERE ${LIVE_TEAM}
                 ORDER BY importance DESC, created_at DESC, id DESC LIMIT $2 OFFSET $3)
  SELECT ${ROW_COLUMNS}, (SELECT count(*) FROM memories WHERE ${LIVE_TEAM}) AS total
    FROM page p JOIN memories m ON m.id = p.id
   ORDER BY p.importance DESC, p.created_at DESC, p.id DESC`;
const SYNC_FLOOR_SQL = `
  SELECT ${ROW_COLUMNS}, m.deleted_at, m.change_seq FROM memories m
   WHERE m.tenant_id = $1 AND m.visibility = 'team' AND (m.change_seq, m.id) > ($2, $3)
   ORDER BY m.change_seq, m.id LIMIT $4`;

/** The offset of the list's later page: the middle of the visible set, on a page boundary. */
export function laterPageOffset(visible: number, limit = TEAM_LIST_LIMIT): number {
  return Math.max(0, Math.floor(visible / 2 / limit) * limit);
}

/**
 * The team's other endpoints through the built API and worker processes, with one member's key at
 * concurrency 1, each cell followed by its physical floor through `pg`; and the memory each process
 * holds with the tenant's indexes loaded (the API's loaded by recalls before timing).
 */
export async function measureTeamEndpoints(
  ctx: BenchContext,
  wiring: RecallWiring,
  options: TeamEndpointOptions,
): Promise<TeamEndpoints> {
  const [member] = options.principals;
  const teammate = options.principals[1] ?? member;
  const seed = 20260303;
  const shape = await describeShape(
    ctx,
    wiring,
    {
      label: options.label,
      users: 1,
      visibility: 'team',
      seed,
      principals: [member],
      keys: options.keys,
      // Another seed than the team's load; each store also carries its own tag, so none is a duplicate.
      stores: generateMemories({ count: 200_000, users: 1, seed }),
    },
    1,
  );
  await options.beforeStart();
  ctx.log('team: starting the built API and worker processes for the endpoint runs');
  const stack = await startServiceProcesses({
    services: ctx.services,
    databaseUrl: ctx.db.url,
    queuePrefix: ctx.queuePrefix,
  });
  const api = new ApiClient(stack.apiUrls);
  const raw = await connectRaw(ctx.db.url, FLOOR_APPLICATION);
  const floors = await RawFloors.open(ctx, wiring, 1);
  const peaks = new RssPeaks([stack.apiPid, stack.workerPid]);
  try {
    peaks.start();
    await new Promise((r) => setTimeout(r, 2000));
    const idle = { api: await rssMb(stack.apiPid), worker: await rssMb(stack.workerPid) };
    ctx.log(`team: loading the tenant's indexes into the built API (first recall until served by them)`);
    const apiIndexLoadMs = await warmApiTextIndexes(api, 1, shape, ctx.log, INDEX_LOAD_DEADLINE_MS);
    const loaded = { api: await rssMb(stack.apiPid), worker: await rssMb(stack.workerPid) };
    const cells = new TeamCells(ctx, api, raw, floors, shape, options.seconds);
    const rows = await cells.run(keyOf(shape, teammate));
    const listCount = (
      await runClosedLoop(
        () =>
          raw
            .query({
              name: 'team-count',
              text: `SELECT count(*) FROM memories WHERE ${LIVE_TEAM}`,
              values: [member.tenantId],
            })
            .then(() => undefined),
        { concurrency: 1, seconds: Math.min(options.seconds, 2), warmupCalls: 1, minCalls: 10 },
      )
    ).latency;
    await peaks.stop();
    const bench = process.memoryUsage();
    return {
      member: member.username,
      secondsPerCell: options.seconds,
      rows,
      syncCatchUp: cells.catchUp,
      warnings: cells.warnings,
      listCount,
      apiIndexLoadMs,
      memory: {
        api: {
          rssIdle: idle.api,
          rssLoaded: loaded.api,
          rssPeak: peaks.peak(stack.apiPid),
          heap: await scrapeHeap(stack.apiUrl),
        },
        worker: {
          rssIdle: idle.worker,
          rssLoaded: loaded.worker,
          rssPeak: peaks.peak(stack.workerPid),
          heap: stack.workerUrl ? await scrapeHeap(stack.workerUrl) : null,
        },
        bench: { rss: bench.rss / MB, heapUsed: bench.heapUsed / MB, heapTotal: bench.heapTotal / MB },
        postgres: await measurePostgresMemory(ctx.pg),
      },
    };
  } finally {
    await peaks.stop();
    await api.close();
    await floors.close();
    await raw.end().catch(() => undefined);
    await stack.stop();
  }
}

/** The endpoint cells of one member over the loaded team, each followed by its floor. */
class TeamCells {
  catchUp = { pages: 0, items: 0, ms: 0 };
  /** Where a service answer and its floor did not hold the same rows (none expected). */
  readonly warnings: string[] = [];
  private readonly member: Principal;
  private readonly key: string;

  constructor(
    private readonly ctx: BenchContext,
    private readonly api: ApiClient,
    private readonly raw: Client,
    private readonly floors: RawFloors,
    private readonly shape: HttpShape,
    private readonly seconds: number,
  ) {
    this.member = shape.principals[0];
    this.key = keyOf(shape, this.member);
  }

  async run(teammateKey: string): Promise<TeamEndpointRow[]> {
    const rows: TeamEndpointRow[] = [];
    const offset = laterPageOffset(this.shape.visiblePerUser);
    const ids = this.shape.readable.get(this.member.userId) ?? [];
    const listPath = `/api/memories?limit=${TEAM_LIST_LIMIT}`;
    rows.push(await this.cell('list', `GET ${listPath}`, get(listPath), await this.listFloor(listPath, 0)));
    const laterPath = `${listPath}&offset=${offset}`;
    rows.push(
      await this.cell(
        'list, later page',
        `GET ${laterPath}`,
        get(laterPath),
        await this.listFloor(laterPath, offset),
      ),
    );
    // Each side draws its own ids, so neither reads rows the other just brought into the cache.
    const serviceIds = new SeededRandom(11);
    const floorIds = new SeededRandom(12);
    rows.push(
      await this.cell(
        'get',
        'GET /api/memories/:id (a random team memory)',
        () => ({ method: 'GET', path: `/api/memories/${serviceIds.pick(ids)}` }),
        async () =>
          void (await this.prepared('team-get', `SELECT ${ROW_COLUMNS} FROM memories m WHERE m.id = $1`, [
            floorIds.pick(ids),
          ])),
      ),
    );
    const syncFloor = (after: readonly [string, string]) => async () =>
      void (await this.prepared('team-sync', SYNC_FLOOR_SQL, [
        this.member.tenantId,
        after[0],
        after[1],
        TEAM_SYNC_LIMIT + 1,
      ]));
    const firstPath = `/api/memories/sync?limit=${TEAM_SYNC_LIMIT}`;
    rows.push(
      await this.cell('sync, first page', `GET ${firstPath}`, get(firstPath), syncFloor(['-1', '-1'])),
    );
    const { cursor, position } = await this.catchUpSync();
    this.ctx.log(`team: a teammate stores ${SYNC_INCREMENT} memories after the member's copy caught up`);
    for (let i = 0; i < SYNC_INCREMENT; i++)
      await this.api.json(0, {
        method: 'POST',
        path: '/api/memories',
        key: teammateKey,
        body: storeBody(nextMemory(this.shape), `team sync ${i}`, 'team'),
      });
    const incrementalPath = `/api/memories/sync?cursor=${encodeURIComponent(cursor)}&limit=${TEAM_SYNC_LIMIT}`;
    const page = await this.api.json<SyncPage>(0, { method: 'GET', path: incrementalPath, key: this.key });
    const floorRows = await this.prepared('team-sync', SYNC_FLOOR_SQL, [
      this.member.tenantId,
      position[0],
      position[1],
      TEAM_SYNC_LIMIT + 1,
    ]);
    const served = page.memories.length + page.tombstones.length;
    if (served !== SYNC_INCREMENT || floorRows !== SYNC_INCREMENT)
      this.warn(
        `the incremental sync page held ${served} changes and its floor ${floorRows} rows, not the ${SYNC_INCREMENT} stored`,
      );
    rows.push(
      await this.cell(
        'sync, incremental',
        `GET /api/memories/sync?cursor=…&limit=${TEAM_SYNC_LIMIT} (${SYNC_INCREMENT} new changes)`,
        get(incrementalPath),
        syncFloor(position),
      ),
    );
    // Last: what it adds grows the set the reads above ran over.
    const storeFloor = await this.floors.call('insert', this.shape, []);
    const store = await this.cell(
      'store',
      'POST /api/memories (new content each time)',
      (i) => ({
        method: 'POST',
        path: '/api/memories',
        body: storeBody(nextMemory(this.shape), `team store ${i}`, 'team'),
      }),
      storeFloor,
    );
    await this.floors.removeInserted();
    rows.push(store);
    return rows;
  }

  /** The service side then the floor, each a closed loop of one lane for `seconds` (≥ 100 calls, ≤ 3 × seconds). */
  private async cell(
    endpoint: TeamEndpoint,
    request: string,
    call: Request,
    floor: Call,
  ): Promise<TeamEndpointRow> {
    this.ctx.log(`team: ${endpoint} through the API, then its floor`);
    const service: Call = async (slot, i) => {
      await this.api.json(slot, { ...call(i), key: this.key });
    };
    const loop = { concurrency: 1, seconds: this.seconds, warmupCalls: 3, minCalls: 100 };
    const serviceRun = await runClosedLoop(service, loop);
    const floorRun = await runClosedLoop(floor, loop);
    for (const [side, run] of [
      ['API', serviceRun],
      ['floor', floorRun],
    ] as const)
      if (run.errors > 0)
        this.ctx.log(`team: ${endpoint} (${side}) failed ${run.errors}×: ${run.firstError ?? ''}`);
    return { endpoint, request, service: serviceRun, floor: floorRun };
  }

  /** The list floor at `offset`, once checked to answer as many rows as the API's page. */
  private async listFloor(path: string, offset: number): Promise<Call> {
    const values = [this.member.tenantId, TEAM_LIST_LIMIT, offset];
    const page = await this.api.json<{ memories: unknown[] }>(0, { method: 'GET', path, key: this.key });
    const floorRows = await this.prepared('team-list', LIST_FLOOR_SQL, values);
    if (page.memories.length !== floorRows)
      this.warn(`${path} answered ${page.memories.length} memories and its floor ${floorRows} rows`);
    return async () => void (await this.prepared('team-list', LIST_FLOOR_SQL, values));
  }

  /** Runs a named (prepared) statement; answers its row count. */
  private async prepared(name: string, text: string, values: unknown[]): Promise<number> {
    return (await this.raw.query({ name, text, values })).rowCount ?? 0;
  }

  private warn(line: string): void {
    this.ctx.log(`team: ${line}`);
    this.warnings.push(line);
  }

  /**
   * Pages the member's new copy through the whole feed at the largest page, as a client seeding
   * itself does, until it is up to date: its cursor is then a recent one. Answers that cursor and
   * the feed position it stands for (the team's last change, read once the copy is up to date).
   */
  private async catchUpSync(): Promise<{ cursor: string; position: readonly [string, string] }> {
    this.ctx.log(`team: catching a new copy up through the sync feed (${SYNC_CATCH_UP_LIMIT} a page)`);
    const started = performance.now();
    let cursor: string | null = null;
    const most = Math.ceil(this.shape.visiblePerUser / SYNC_CATCH_UP_LIMIT) + 20;
    for (let page = 0; page < most; page++) {
      const query: string = cursor ? `cursor=${encodeURIComponent(cursor)}&` : '';
      const answer: SyncPage = await this.api.json<SyncPage>(0, {
        method: 'GET',
        path: `/api/memories/sync?${query}limit=${SYNC_CATCH_UP_LIMIT}`,
        key: this.key,
      });
      this.catchUp.pages += 1;
      this.catchUp.items += answer.memories.length + answer.tombstones.length;
      cursor = answer.next_cursor;
      if (!answer.has_more) break;
    }
    this.catchUp.ms = performance.now() - started;
    if (!cursor) throw new Error('the sync feed answered no cursor');
    const { rows } = await this.raw.query<{ seq: string; id: string }>(
      `SELECT change_seq::text AS seq, id::text AS id FROM memories
        WHERE tenant_id = $1 AND visibility = 'team' ORDER BY change_seq DESC, id DESC LIMIT 1`,
      [this.member.tenantId],
    );
    return { cursor, position: [rows[0].seq, rows[0].id] };
  }
}

type Request = (i: number) => { method: 'GET' | 'POST'; path: string; body?: unknown };

const get =
  (path: string): Request =>
  () => ({ method: 'GET', path });
