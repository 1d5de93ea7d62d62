import { loadavg } from 'node:os';
import { generateMemories } from '../corpus/memory-generator';
import type { RecallWiring } from '../harness/recall-wiring';
import type { BenchContext } from '../phases/bench-context';
import {
  prepareHttpShapes,
  runHttpPhase,
  TEAM_SHAPE,
  type HttpPhaseOptions,
  type HttpResults,
} from '../phases/http-phase';
import type { LoadedTeam } from '../phases/team-recall-phase';
import { renderHttpReport } from '../report/http-report';
import { describeMachine } from '../report/machine';
import { writeReport } from '../report/write-report';
import { describeShape } from './http-shape';

export interface HttpMeasureOptions {
  readonly quick: boolean;
  readonly seconds: number;
  /** Team-visible memories of the team shape loaded for the HTTP run. */
  readonly teamMemories: number;
  /** A team the in-process run already loaded: measured too, as the largest shape (no second load). */
  readonly loadedTeam?: LoadedTeam & { readonly memories: number };
  readonly profileDir?: string;
  /** Stops the in-process services once the shapes are loaded. */
  readonly stopInProcess: () => Promise<void>;
}

export interface HttpBenchOptions extends HttpMeasureOptions {
  readonly outDir: string;
  readonly started: number;
  readonly loadBefore: number;
  readonly notes: readonly string[];
}

/**
 * Loads the HTTP shapes (100 users × 1%, a team, and the in-process run's team when given), stops
 * the in-process services, and measures every workload through the built processes.
 */
export async function measureHttp(
  ctx: BenchContext,
  wiring: RecallWiring,
  options: HttpMeasureOptions,
): Promise<HttpResults> {
  const phase: HttpPhaseOptions = {
    seconds: options.seconds,
    // The quick run keeps both ends: one client alone, and more clients than cores.
    concurrencies: options.quick ? [1, 16] : [1, 4, 16],
    userMemories: 10_000,
    teamMemories: options.teamMemories,
    twoApis: true,
    profileDir: options.profileDir,
  };
  const shapes = await prepareHttpShapes(ctx, wiring, phase);
  const loaded = options.loadedTeam;
  if (loaded) {
    const seed = TEAM_SHAPE.seed + 100;
    shapes.push(
      await describeShape(
        ctx,
        wiring,
        {
          label: `team of ${loaded.principals.length}, ${loaded.memories.toLocaleString('en-US')} visible`,
          users: loaded.principals.length,
          visibility: 'team',
          seed,
          principals: loaded.principals,
          keys: loaded.keys,
          // Another seed than the team's load; each store also carries its own tag, so none is a duplicate.
          stores: generateMemories({ count: 200_000, users: loaded.principals.length, seed }),
        },
        shapes[0].queries.size,
      ),
    );
  }
  // Only the measured processes may serve the database (the in-process relay would share their work).
  await options.stopInProcess();
  return runHttpPhase(ctx, wiring, shapes, phase);
}

/** `npm run bench -- --http`: only the HTTP run; writes latest-http.* (latest-http-quick.*). */
export async function runHttpBench(
  ctx: BenchContext,
  wiring: RecallWiring,
  options: HttpBenchOptions,
): Promise<void> {
  const http = await measureHttp(ctx, wiring, options);
  const results = {
    mode: options.quick ? ('http-quick' as const) : ('http' as const),
    startedAt: new Date(options.started).toISOString(),
    durationS: (Date.now() - options.started) / 1000,
    machine: await describeMachine(ctx.pg),
    loadAverage: { before: options.loadBefore, after: loadavg()[0] },
    model: ctx.active,
    overrides: ctx.services.env,
    http,
    notes: options.notes,
  };
  await writeReport(
    options.outDir,
    `latest-${results.mode}`,
    { markdown: renderHttpReport(results), data: results },
    ctx.log,
  );
}
