import type { ProcessStack } from '../harness/service-processes';
import type { LatencySummary } from '../metrics';
import type { BenchContext } from '../phases/bench-context';
import type { FloorParts } from '../recall/raw-floor';
import { indexShare, scrapeTextLegCounts } from '../recall/text-leg-counts';
import { ApiClient, MAX_CONNECTIONS } from './api-client';
import { runClosedLoop, type Call, type LoadResult } from './closed-loop';
import type { HttpShape } from './http-shape';
import { serviceCalls, type WorkloadName } from './http-workloads';
import { warmApiTextIndexes } from './index-warmup';
import { backendPids, cpuSpent, snapshotCpu, type CpuGroups } from './process-usage';
import { FLOOR_APPLICATION, FLOOR_OF, type FloorName, type RawFloors } from './raw-floors';

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
  /** The recall floor's parts (medians), on recall rows. */
  readonly floorParts: FloorParts | null;
  /** Recall rows: the share of the cell's recalls whose text leg an API's index served (null: not read). */
  readonly indexShare: number | null;
}

export interface HttpCell {
  readonly workload: WorkloadName;
  readonly c: number;
}

/**
 * Each cell through `stack`, followed by its floor at the same concurrency on the same texts, with
 * the CPU each process spent per request; recall cells also read how many of their text legs the
 * API processes' indexes served (their `/metrics`, outside the CPU window).
 */
export async function measureCells(
  ctx: BenchContext,
  stack: ProcessStack,
  floors: RawFloors,
  shape: HttpShape,
  cells: readonly HttpCell[],
  seconds: number,
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
      const recall = workload === 'recall' || workload === 'mcp recall';
      const counted = recall ? await scrapeTextLegCounts(stack.apiUrls) : null;
      const service = await timed(calls[workload], c, seconds, groups);
      const share = recall ? indexShare(counted, await scrapeTextLegCounts(stack.apiUrls)) : null;
      const floorName = FLOOR_OF[workload] ?? null;
      // The floor runs the texts the service just ran (it has no cache to hit).
      const floor = floorName
        ? await timed(await floors.call(floorName, shape, shape.queries.since(mark)), c, seconds, groups)
        : null;
      const floorParts = floors.takeParts();
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
        floorParts,
        indexShare: share,
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

/**
 * Every API process of `stack` serves the shape's recalls from its index, and has seen each member
 * once, before the shape's cells run. Answers the first process's load time (null: not served).
 */
export async function warmApis(
  ctx: BenchContext,
  stack: ProcessStack,
  shape: HttpShape,
): Promise<number | null> {
  const api = new ApiClient(stack.apiUrls);
  try {
    ctx.log(
      `http: ${shape.label} · text index and members warmed in ${stack.apiUrls.length} API process(es)`,
    );
    return await warmApiTextIndexes(api, stack.apiUrls.length, shape, ctx.log);
  } finally {
    await api.close();
  }
}

/** The Postgres text leg alone on the texts the shape's recalls used: the fallback, beside the floor. */
export async function timeSqlTextLeg(
  ctx: BenchContext,
  floors: RawFloors,
  shape: HttpShape,
  seconds: number,
): Promise<LatencySummary> {
  ctx.log(`http: ${shape.label} · SQL text leg (fallback) alone`);
  const call = await floors.sqlTextLeg(shape, shape.queries.since(0));
  const result = await runClosedLoop(call, { concurrency: 1, seconds, warmupCalls: 1, minCalls: 5 });
  if (result.errors > 0)
    ctx.log(`http: SQL text leg failed ${result.errors} times: ${result.firstError ?? ''}`);
  return result.latency;
}
