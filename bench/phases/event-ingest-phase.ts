import { createBenchKeys } from '../harness/bench-tenant';
import { startServiceProcesses } from '../harness/service-processes';
import { measureEventIngest, type EventIngestResult } from '../sessions/event-ingest';
import type { BenchContext } from './bench-context';

/**
 * Event capture through HTTP against its multi-row INSERT floor (one member of the bench tenant),
 * with the API and the worker in processes of their own, so the load generator and the floor do not
 * share the service's event loop.
 */
export async function runEventIngestPhase(
  ctx: BenchContext,
  options: { seconds: number; profileDir?: string },
): Promise<EventIngestResult> {
  const principal = ctx.principals[ctx.principals.length - 1];
  const keys = await createBenchKeys(ctx.pg, [principal]);
  ctx.log('event ingest: starting the built API and worker as processes');
  const stack = await startServiceProcesses({
    services: ctx.services,
    databaseUrl: ctx.db.url,
    queuePrefix: ctx.queuePrefix,
    profileDir: options.profileDir,
  });
  try {
    return await measureEventIngest({
      apiUrl: stack.apiUrl,
      key: keys.get(principal.userId) as string,
      principal,
      pg: ctx.pg,
      seconds: options.seconds,
      log: ctx.log,
    });
  } finally {
    await stack.stop();
  }
}
