import { loadavg } from 'node:os';
import type { RecallWiring } from '../harness/recall-wiring';
import type { BenchContext } from '../phases/bench-context';
import { prepareHttpShapes, runHttpPhase, type HttpPhaseOptions } from '../phases/http-phase';
import { renderHttpReport } from '../report/http-report';
import { describeMachine } from '../report/machine';
import { writeReport } from '../report/write-report';

export interface HttpBenchOptions {
  readonly quick: boolean;
  readonly seconds: number;
  readonly teamMemories: number;
  readonly profileDir?: string;
  readonly outDir: string;
  /** Stops the in-process services once the shapes are loaded. */
  readonly stopInProcess: () => Promise<void>;
  readonly started: number;
  readonly loadBefore: number;
  readonly notes: readonly string[];
}

/** `npm run bench -- --http`: loads both shapes, measures through the built processes, writes latest-http.*. */
export async function runHttpBench(
  ctx: BenchContext,
  wiring: RecallWiring,
  options: HttpBenchOptions,
): Promise<void> {
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
  // Only the measured processes may serve the database (the in-process relay would share their work).
  await options.stopInProcess();
  const http = await runHttpPhase(ctx, wiring, shapes, phase);
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
