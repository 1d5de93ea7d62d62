import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ChaosTally } from './tally';

describe('ChaosTally', () => {
  const previous = process.env.CHAOS_RESULTS_DIR;
  afterEach(() => {
    if (previous === undefined) delete process.env.CHAOS_RESULTS_DIR;
    else process.env.CHAOS_RESULTS_DIR = previous;
  });

  it('reports passed and failed checks with every core figure, and leaves a JSON copy', () => {
    const dir = mkdtempSync(join(tmpdir(), 'chaos-'));
    process.env.CHAOS_RESULTS_DIR = dir;
    const tally = new ChaosTally('Isolation fuzz');
    tally.add('calls', 3);
    tally.check('bob sees nothing of alice', true);
    tally.check('cursor of alice refused for bob', false, () => 'got 200');
    const lines: string[] = [];
    const result = tally.report((l) => lines.push(l));
    expect(lines[0]).toMatch(/^Isolation fuzz: 1 passed, 1 failed/);
    expect(lines[0]).toContain('lost');
    expect(lines[0]).toContain('FAILED cursor of alice refused for bob: got 200');
    const saved = JSON.parse(readFileSync(join(dir, 'isolation-fuzz.json'), 'utf8'));
    expect(saved.figures).toMatchObject({ calls: 3, lost: 0, leaks: 0, '5xx': 0 });
    expect(result.failed).toBe(1);
    expect(() => tally.assertClean()).toThrow(/1 failed/);
  });

  it('fails a suite whose checks all held but which saw a 5xx or a leak', () => {
    const tally = new ChaosTally('Input fuzz');
    tally.status(200, 'POST /api/memories');
    expect(() => tally.assertClean()).not.toThrow();
    tally.status(503, 'POST /api/memories');
    expect(() => tally.assertClean()).toThrow(/5xx = 1/);
    const leaky = new ChaosTally('leaky');
    leaky.add('leaks');
    expect(() => leaky.assertClean()).toThrow(/leaks = 1/);
  });
});
