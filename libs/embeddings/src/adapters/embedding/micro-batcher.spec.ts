import { afterEach, describe, expect, it, vi } from 'vitest';
import { MicroBatcher } from './micro-batcher';

/** A batch function that records its calls and upper-cases its inputs. */
function recordingRun(options: { failOn?: string; delayMs?: number } = {}) {
  const calls: string[][] = [];
  let active = 0;
  let maxActive = 0;
  const run = async (items: readonly string[]): Promise<string[]> => {
    calls.push([...items]);
    active += 1;
    maxActive = Math.max(maxActive, active);
    try {
      await new Promise((resolve) => setTimeout(resolve, options.delayMs ?? 0));
      if (options.failOn !== undefined && items.includes(options.failOn))
        throw new Error(`bad input ${options.failOn}`);
      return items.map((item) => item.toUpperCase());
    } finally {
      active -= 1;
    }
  };
  return { run, calls, maxActive: () => maxActive };
}

const words = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}${i}`);

describe('MicroBatcher', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('merges concurrent calls into one batch and gives each caller its own outputs in order', async () => {
    const { run, calls } = recordingRun();
    const batcher = new MicroBatcher({ maxBatchSize: 32, maxWaitMs: 5, run });

    const [a, b, c] = await Promise.all([
      batcher.submit(['a1', 'a2']),
      batcher.submit(['b1', 'b2', 'b3']),
      batcher.submit(['c1']),
    ]);

    expect(calls).toEqual([['a1', 'a2', 'b1', 'b2', 'b3', 'c1']]);
    expect(a).toEqual(['A1', 'A2']);
    expect(b).toEqual(['B1', 'B2', 'B3']);
    expect(c).toEqual(['C1']);
  });

  it('splits large requests into batches of at most maxBatchSize and reassembles them in order', async () => {
    const { run, calls } = recordingRun();
    const batcher = new MicroBatcher({ maxBatchSize: 32, maxWaitMs: 5, run });

    const [big, small] = await Promise.all([batcher.submit(words('x', 70)), batcher.submit(['y'])]);

    expect(calls.map((call) => call.length)).toEqual([32, 32, 7]);
    expect(big).toEqual(words('X', 70));
    expect(small).toEqual(['Y']);
  });

  it('runs a full batch at once and waits at most maxWaitMs for a partial one', async () => {
    vi.useFakeTimers();
    const run = vi.fn(async (items: readonly string[]) => items.map((item) => item.length));
    const batcher = new MicroBatcher({ maxBatchSize: 4, maxWaitMs: 50, run });

    const full = batcher.submit(['a', 'bb', 'ccc', 'dddd']);
    await vi.advanceTimersByTimeAsync(0);
    expect(run).toHaveBeenCalledTimes(1);
    await expect(full).resolves.toEqual([1, 2, 3, 4]);

    const partial = batcher.submit(['eeeee']);
    await vi.advanceTimersByTimeAsync(49);
    expect(run).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(run).toHaveBeenCalledTimes(2);
    await expect(partial).resolves.toEqual([5]);
  });

  it('runs one batch at a time and sends what arrived meanwhile as the next batch', async () => {
    const { run, calls, maxActive } = recordingRun({ delayMs: 20 });
    const batcher = new MicroBatcher({ maxBatchSize: 2, maxWaitMs: 1, run });

    const first = batcher.submit(['a', 'b']);
    await new Promise((resolve) => setTimeout(resolve, 5)); // first batch is running now
    const later = await Promise.all([batcher.submit(['c']), batcher.submit(['d']), batcher.submit(['e'])]);
    await first;

    expect(maxActive()).toBe(1);
    expect(calls).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    expect(later).toEqual([['C'], ['D'], ['E']]);
  });

  it('isolates a failure to the caller whose input caused it', async () => {
    const { run, calls } = recordingRun({ failOn: 'bad' });
    const batcher = new MicroBatcher({ maxBatchSize: 32, maxWaitMs: 5, run });

    const results = await Promise.allSettled([
      batcher.submit(['a']),
      batcher.submit(['ok', 'bad']),
      batcher.submit(['c']),
    ]);

    expect(results[0]).toEqual({ status: 'fulfilled', value: ['A'] });
    expect(results[1]).toMatchObject({ status: 'rejected', reason: new Error('bad input bad') });
    expect(results[2]).toEqual({ status: 'fulfilled', value: ['C'] });
    // The merged batch failed once, then each request ran alone.
    expect(calls).toEqual([['a', 'ok', 'bad', 'c'], ['a'], ['ok', 'bad'], ['c']]);

    await expect(batcher.submit(['after'])).resolves.toEqual(['AFTER']);
  });

  it('fails a split request once and drops its parts that have not run yet', async () => {
    const { run, calls } = recordingRun({ failOn: 'x0' });
    const batcher = new MicroBatcher({ maxBatchSize: 2, maxWaitMs: 1, run });

    await expect(batcher.submit(['x0', 'x1', 'x2', 'x3', 'x4'])).rejects.toThrow('bad input x0');

    expect(calls).toEqual([['x0', 'x1']]);
    await expect(batcher.submit(['y'])).resolves.toEqual(['Y']);
  });

  it('rejects when the batch function returns the wrong number of outputs', async () => {
    const batcher = new MicroBatcher({ maxBatchSize: 8, maxWaitMs: 1, run: async () => ['only one'] });

    await expect(batcher.submit(['a', 'b'])).rejects.toThrow('returned 1 outputs for 2 inputs');
  });

  it('answers an empty request without running a batch', async () => {
    const run = vi.fn(async (items: readonly string[]) => [...items]);
    const batcher = new MicroBatcher({ maxBatchSize: 8, maxWaitMs: 1, run });

    await expect(batcher.submit([])).resolves.toEqual([]);
    expect(run).not.toHaveBeenCalled();
  });

  it('refuses a batch size below one', () => {
    expect(() => new MicroBatcher({ maxBatchSize: 0, maxWaitMs: 1, run: async () => [] })).toThrow(
      RangeError,
    );
  });
});
