import { performance } from 'node:perf_hooks';

export interface LoadResult {
  readonly done: number;
  readonly errors: number;
  readonly seconds: number;
  /** Milliseconds of each successful operation, sorted. */
  readonly latencies: Float64Array;
}

/**
 * `concurrency` loops calling `op` back to back for `seconds` (a closed loop: a new request starts
 * when one finishes). `op(i)` gets the loop's index; it answers false for an error response.
 */
export async function runLoad(options: {
  readonly concurrency: number;
  readonly seconds: number;
  readonly op: (loop: number) => Promise<boolean>;
}): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  const start = performance.now();
  const until = start + options.seconds * 1000;
  const loop = async (i: number) => {
    while (performance.now() < until) {
      const t = performance.now();
      const ok = await options.op(i).catch(() => false);
      if (ok) latencies.push(performance.now() - t);
      else errors += 1;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, (_, i) => loop(i)));
  const seconds = (performance.now() - start) / 1000;
  return { done: latencies.length, errors, seconds, latencies: Float64Array.from(latencies).sort() };
}

export function percentile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}
