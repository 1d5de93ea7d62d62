import type { RecallWiring } from '../harness/recall-wiring';
import { startServiceProcesses, type ProcessStack } from '../harness/service-processes';
import { ApiClient, MAX_CONNECTIONS } from '../http/api-client';
import { runClosedLoop, type Call, type LoadResult } from '../http/closed-loop';
import { prepareShapes, QueryStream, type HttpShape, type ShapeSpec } from '../http/http-shape';
import { serviceCalls, WORKLOADS, type WorkloadName } from '../http/http-workloads';
import { backendPids, cpuSpent, rssMb, RssPeaks, snapshotCpu, type CpuGroups } from '../http/process-usage';
import { FLOOR_APPLICATION, FLOOR_OF, RawFloors, type FloorName } from '../http/raw-floors';
import type { BenchContext } from './bench-context';

export interface HttpPhaseOptions {
  /** Timed seconds per workload × concurrency (the floor gets the same). */
  readonly seconds: number;
  readonly concurrencies: readonly number[];
  /** Memories of the many-small-users shape (100 users, each owning 1%). */
  readonly userMemories: number;
  /** Team-visible memories of the one-team shape. */
  readonly teamMemories: number;
  /** Also run store, recall and list at the highest concurrency against two API processes. */
  readonly twoApis: boolean;
  /** Write V8 CPU profiles of the one-API run's API and worker processes here (`--profile`). */
  readonly profileDir?: string;
}

/** CPU milliseconds per request, from each process's own accounting (/proc/<pid>/stat). */
export interface CpuPerRequest {
  readonly api: number;
  readonly worker: number;
  /** Postgres backends of the API and the worker together. */
  readonly postgres: number;
}

export interface HttpRow {
  readonly shape: string;
  readonly workload: WorkloadName;
  readonly concurrency: number;
  readonly apiProcesses: number;
  readonly service: LoadResult;
  readonly cpu: CpuPerRequest;
  readonly floorName: FloorName | null;
  readonly floor: LoadResult | null;
  /** Postgres CPU milliseconds per floor call. */
  readonly floorPostgresMs: number | null;
}

export interface HttpResults {
  readonly secondsPerCell: number;
  readonly shapes: readonly { label: string; users: number; memories: number; visiblePerUser: number }[];
  readonly rows: readonly HttpRow[];
  /** Resident memory in MB: idle after start, and the peak under the load of the one-API runs. */
  readonly rss: { apiIdle: number; workerIdle: number; apiPeak: number; workerPeak: number };
  /** Recalls that had to reuse a text (0 expected: each should miss the query cache). */
  readonly reusedQueries: number;
}

export const USER_SHAPE = { slug: 'http-users', users: 100, visibility: 'private', seed: 31 } as const;
export const TEAM_SHAPE = { slug: 'http-team', users: 20, visibility: 'team', seed: 32 } as const;

/**
 * Loads both data shapes while the in-process services are still up (the loader and the plan
 * lookups use them); the caller stops those before `runHttpPhase`, so only the measured processes
 * serve the database.
 */
export async function prepareHttpShapes(
  ctx: BenchContext,
  wiring: RecallWiring,
  options: HttpPhaseOptions,
): Promise<HttpShape[]> {
  // Enough unseen texts for the fastest recall this machine could plausibly sustain.
  const texts = Math.max(2000, Math.round(options.seconds * 600));
  const specs: ShapeSpec[] = [
    {
      ...USER_SHAPE,
      memories: options.userMemories,
      label: `100 users × 1% of ${count(options.userMemories)}`,
    },
    {
      ...TEAM_SHAPE,
      memories: options.teamMemories,
      label: `team of 20, ${count(options.teamMemories)} visible`,
    },
  ];
  return prepareShapes(ctx, wiring, specs, texts);
}

/**
 * Every workload at every concurrency through the built API and worker processes, each followed
 * by its raw floor at the same concurrency, with the CPU each process spent per request.
 */
export async function runHttpPhase(
  ctx: BenchContext,
  wiring: RecallWiring,
  shapes: readonly HttpShape[],
  options: HttpPhaseOptions,
): Promise<HttpResults> {
  const floors = await RawFloors.open(ctx, wiring, MAX_CONNECTIONS);
  const rows: HttpRow[] = [];
  try {
    const one = await startStack(ctx, 1, options.profileDir);
    let rss: HttpResults['rss'];
    try {
      await new Promise((r) => setTimeout(r, 2000));
      const apiIdle = await rssMb(one.apiPids[0]);
      const workerIdle = await rssMb(one.workerPid);
      const peaks = new RssPeaks([...one.apiPids, one.workerPid]);
      peaks.start();
      for (const shape of shapes) {
        // Session events do not depend on the memories a caller sees: one shape is enough.
        const workloads = shape === shapes[0] ? WORKLOADS : WORKLOADS.filter((w) => w !== 'event ingest');
        const cells = workloads.flatMap((workload) => options.concurrencies.map((c) => ({ workload, c })));
        rows.push(...(await measureCells(ctx, one, floors, shape, cells, options)));
      }
      await peaks.stop();
      rss = {
        apiIdle,
        workerIdle,
        apiPeak: peaks.peak(one.apiPids[0]),
        workerPeak: peaks.peak(one.workerPid),
      };
    } finally {
      await one.stop();
    }
    if (options.twoApis) {
      const two = await startStack(ctx, 2);
      try {
        const c = Math.max(...options.concurrencies);
        // The loaded team (10k by default): the shape the one-API rows above also ran first.
        const shape = shapes[Math.min(1, shapes.length - 1)];
        const cells = (['recall', 'list', 'store'] as const).map((workload) => ({ workload, c }));
        rows.push(...(await measureCells(ctx, two, floors, shape, cells, options)));
      } finally {
        await two.stop();
      }
    }
    return {
      secondsPerCell: options.seconds,
      shapes: shapes.map((s) => ({
        label: s.label,
        users: s.principals.length,
        memories: s.visibility === 'team' ? s.visiblePerUser : s.visiblePerUser * s.principals.length,
        visiblePerUser: s.visiblePerUser,
      })),
      rows,
      rss,
      reusedQueries: shapes.reduce((sum, s) => sum + s.queries.reused, 0),
    };
  } finally {
    await floors.close();
  }
}

async function startStack(
  ctx: BenchContext,
  apiProcesses: number,
  profileDir?: string,
): Promise<ProcessStack> {
  ctx.log(`http: starting ${apiProcesses} API process(es) and a worker`);
  return startServiceProcesses({
    services: ctx.services,
    databaseUrl: ctx.db.url,
    queuePrefix: ctx.queuePrefix,
    apiProcesses,
    profileDir,
  });
}

async function measureCells(
  ctx: BenchContext,
  stack: ProcessStack,
  floors: RawFloors,
  shape: HttpShape,
  cells: readonly { workload: WorkloadName; c: number }[],
  options: HttpPhaseOptions,
): Promise<HttpRow[]> {
  const api = new ApiClient(stack.apiUrls);
  const groups: CpuGroups = {
    api: async () => stack.apiPids,
    worker: async () => [stack.workerPid],
    postgres: async () => [
      ...(await backendPids(ctx.pg, 'memory-api')),
      ...(await backendPids(ctx.pg, 'memory-worker')),
    ],
    floor: () => backendPids(ctx.pg, FLOOR_APPLICATION),
  };
  const rows: HttpRow[] = [];
  try {
    const calls = await serviceCalls(api, stack.apiUrl, shape, MAX_CONNECTIONS);
    for (const { workload, c } of cells) {
      ctx.log(`http: ${shape.label} · ${workload} · concurrency ${c} · ${stack.apiPids.length} API`);
      const mark = shape.queries.mark();
      const service = await timed(calls[workload], c, options.seconds, groups);
      const floorName = FLOOR_OF[workload] ?? null;
      // The floor runs the texts the service just ran (it has no cache to hit).
      const floor = floorName
        ? await timed(
            floors.call(floorName, shape, new QueryStream(shape.queries.since(mark))),
            c,
            options.seconds,
            groups,
          )
        : null;
      await floors.removeInserted();
      rows.push({
        shape: shape.label,
        workload,
        concurrency: c,
        apiProcesses: stack.apiPids.length,
        service: service.result,
        cpu: {
          api: service.cpuMs.api / service.calls,
          worker: service.cpuMs.worker / service.calls,
          postgres: service.cpuMs.postgres / service.calls,
        },
        floorName,
        floor: floor?.result ?? null,
        floorPostgresMs: floor ? floor.cpuMs.floor / floor.calls : null,
      });
    }
  } finally {
    await api.close();
  }
  return rows;
}

async function timed(call: Call, concurrency: number, seconds: number, groups: CpuGroups) {
  const before = await snapshotCpu(groups);
  const result = await runClosedLoop(call, {
    concurrency,
    seconds,
    warmupCalls: concurrency * 2,
    minCalls: 20,
  });
  const cpuMs = cpuSpent(before, await snapshotCpu(groups));
  // Warm-up calls and failures cost CPU too: count every call.
  return { result, cpuMs, calls: Math.max(1, result.calls) };
}

const count = (n: number) => n.toLocaleString('en-US');
