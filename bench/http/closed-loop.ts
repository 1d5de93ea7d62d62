import { summariseLatencies, type LatencySummary } from '../metrics';

/**
 * One call of a workload: `slot` is the caller's lane (0 … concurrency − 1), `i` a run-wide counter.
 * It may answer its own latency in ms when part of the call is untimed setup.
 */
export type Call = (slot: number, i: number) => Promise<number | void>;

export interface LoadResult {
  readonly concurrency: number;
  /** Successful calls, timed from send to the last byte of the answer. */
  readonly latency: LatencySummary;
  readonly perSecond: number;
  readonly errors: number;
  /** The first failure's message, so a broken workload explains itself in the report. */
  readonly firstError: string | null;
  readonly seconds: number;
  /** Every call made, warm-up and failures included (what the processes' CPU time was spent on). */
  readonly calls: number;
}

export interface LoadOptions {
  readonly concurrency: number;
  readonly seconds: number;
  /** Untimed calls first (same lanes), so pools, caches and JIT are warm. */
  readonly warmupCalls: number;
  /** Keep going past `seconds` until this many calls finished (bounded by 3 × seconds). */
  readonly minCalls: number;
}

/**
 * A fixed number of lanes, each sending its next call as soon as the previous one answered
 * (closed loop): the throughput is what the system sustains at that concurrency, and the latency
 * is what each of `concurrency` busy clients sees.
 */
export async function runClosedLoop(call: Call, options: LoadOptions): Promise<LoadResult> {
  let counter = 0;
  let errors = 0;
  let firstError: string | null = null;
  const latencies: number[] = [];
  const fail = (error: unknown) => {
    errors += 1;
    firstError ??= error instanceof Error ? error.message : String(error);
  };

  const lanes = Math.max(1, options.concurrency);
  await Promise.all(
    Array.from({ length: lanes }, async (_, slot) => {
      for (let w = slot; w < options.warmupCalls; w += lanes)
        await call(slot, counter++).catch(() => undefined);
    }),
  );

  const started = performance.now();
  const soft = started + options.seconds * 1000;
  const hard = started + options.seconds * 3000;
  const more = () => {
    const now = performance.now();
    return now < soft || (now < hard && latencies.length + errors < options.minCalls);
  };
  await Promise.all(
    Array.from({ length: lanes }, async (_, slot) => {
      while (more()) {
        const t0 = performance.now();
        try {
          const own = await call(slot, counter++);
          latencies.push(typeof own === 'number' ? own : performance.now() - t0);
        } catch (error) {
          fail(error);
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return {
    concurrency: lanes,
    latency: summariseLatencies(latencies),
    perSecond: latencies.length / seconds,
    errors,
    firstError,
    seconds,
    calls: counter,
  };
}
