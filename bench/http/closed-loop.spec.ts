import { describe, expect, it } from 'vitest';
import { runClosedLoop } from './closed-loop';
import { cpuSpent } from './process-usage';

describe('runClosedLoop', () => {
  it('never has more calls in flight than lanes, and counts warm-up calls apart from timed ones', async () => {
    let inFlight = 0;
    let most = 0;
    const result = await runClosedLoop(
      async () => {
        most = Math.max(most, ++inFlight);
        await new Promise((r) => setTimeout(r, 2));
        inFlight -= 1;
      },
      { concurrency: 4, seconds: 0.05, warmupCalls: 8, minCalls: 0 },
    );
    expect(most).toBe(4);
    expect(result.calls).toBe(result.latency.count + 8);
    expect(result.errors).toBe(0);
  });

  it('counts failures apart, with the first failure message', async () => {
    const result = await runClosedLoop(
      async (_slot, i) => {
        if (i % 2 === 0) throw new Error(`refused ${i}`);
      },
      { concurrency: 1, seconds: 0.01, warmupCalls: 0, minCalls: 0 },
    );
    expect(result.errors).toBe(Math.ceil(result.calls / 2));
    expect(result.latency.count + result.errors).toBe(result.calls);
    expect(result.firstError).toBe('refused 0');
  });

  it('uses the latency a call answers instead of the wall clock', async () => {
    const result = await runClosedLoop(async () => 42, {
      concurrency: 2,
      seconds: 0.01,
      warmupCalls: 0,
      minCalls: 0,
    });
    expect(result.latency.p50).toBe(42);
  });
});

describe('cpuSpent', () => {
  it('sums each group over its processes, counting a process new in the window from zero', () => {
    const before = new Map([['postgres', new Map([[10, 1.0]])]]);
    const after = new Map([
      [
        'postgres',
        new Map([
          [10, 1.5],
          [11, 0.25],
        ]),
      ],
    ]);
    expect(cpuSpent(before, after)).toEqual({ postgres: 750 });
  });
});
