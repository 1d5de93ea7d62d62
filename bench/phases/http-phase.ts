import type { RecallWiring } from '../harness/recall-wiring';
import { startServiceProcesses, type ProcessStack } from '../harness/service-processes';
import { MAX_CONNECTIONS } from '../http/api-client';
import { measureCells, timeSqlTextLeg, warmApis, type HttpCell, type HttpRow } from '../http/http-cells';
import { prepareShapes, type HttpShape, type ShapeSpec } from '../http/http-shape';
import { WORKLOADS } from '../http/http-workloads';
import { rssMb, RssPeaks } from '../http/process-usage';
import { RawFloors } from '../http/raw-floors';
import type { LatencySummary } from '../metrics';
import type { TextIndexUse } from '../recall/floor-text-index';
import type { BenchContext } from './bench-context';

export type { CpuPerRequest, HttpRow } from '../http/http-cells';

export interface HttpPhaseOptions {
  /** Timed seconds per workload × concurrency (the floor gets the same). */
  readonly seconds: number;
  readonly concurrencies: readonly number[];
  /** Memories of the many-small-users shape (100 users, each owning 1%). */
  readonly userMemories: number;
  /** Team-visible memories of the one-team shape. */
  readonly teamMemories: number;
  /**
   * Also run against two API processes: recall at every concurrency from 4 up on each team shape,
   * list and store at the highest on the first team shape.
   */
  readonly twoApis: boolean;
  /** Write V8 CPU profiles of the one-API run's API and worker processes here (`--profile`). */
  readonly profileDir?: string;
}

export interface HttpShapeResult {
  readonly label: string;
  readonly users: number;
  readonly memories: number;
  readonly visiblePerUser: number;
  /** The floor copy's index and the one-API process's load (first recall until served by the index). */
  readonly textIndex: TextIndexUse;
  /** The text leg's Postgres fallback alone, one lane, on the shape's recall texts. */
  readonly sqlTextLeg: LatencySummary | null;
}

export interface HttpResults {
  readonly secondsPerCell: number;
  readonly shapes: readonly HttpShapeResult[];
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
  // Enough unseen texts for the fastest recall this machine could plausibly sustain (the index leg
  // does a few hundred a second) over a shape's recall cells; the generator holds ~17k distinct texts.
  const texts = Math.max(3000, Math.round(options.seconds * 1500));
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
  const appLoads = new Map<string, number | null>();
  const sqlTextLegs = new Map<string, LatencySummary>();
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
        // Right before the shape's cells: a large set's sizing is remembered for a minute only.
        appLoads.set(shape.label, await warmApis(ctx, one, shape));
        rows.push(...(await measureCells(ctx, one, floors, shape, cells, options.seconds)));
        sqlTextLegs.set(shape.label, await timeSqlTextLeg(ctx, floors, shape, options.seconds));
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
        for (const [shape, cells] of twoApiCells(shapes, options.concurrencies)) {
          await warmApis(ctx, two, shape);
          rows.push(...(await measureCells(ctx, two, floors, shape, cells, options.seconds)));
        }
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
        textIndex: {
          appLoadMs: appLoads.get(s.label) ?? null,
          floor: ctx.floorTexts.loadOf(s.principals[0].tenantId) ?? null,
        },
        sqlTextLeg: sqlTextLegs.get(s.label) ?? null,
      })),
      rows,
      rss,
      reusedQueries: shapes.reduce((sum, s) => sum + s.queries.reused, 0),
    };
  } finally {
    await floors.close();
  }
}

/**
 * What runs against two API processes: recall at every concurrency from 4 up on each team shape
 * (each process holds its own index of the whole team, so a second process should add throughput),
 * then list and store at the highest concurrency on the first team shape.
 */
export function twoApiCells(
  shapes: readonly HttpShape[],
  concurrencies: readonly number[],
): [HttpShape, HttpCell[]][] {
  const teams = shapes.filter((s) => s.visibility === 'team');
  const top = Math.max(...concurrencies);
  return teams.map((shape) => {
    const cells: HttpCell[] = concurrencies.filter((c) => c >= 4).map((c) => ({ workload: 'recall', c }));
    if (shape === teams[0]) cells.push({ workload: 'list', c: top }, { workload: 'store', c: top });
    return [shape, cells];
  });
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

const count = (n: number) => n.toLocaleString('en-US');
