import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildDataset } from './src/assemble';
import { workdaysBefore, sessionDay } from './src/calendar';
import { renderFiles } from './src/render';

describe('team-conversations generator', () => {
  it('reproduces the committed files from its seed', () => {
    for (const [name, content] of Object.entries(renderFiles(buildDataset()))) {
      expect(readFileSync(join(__dirname, name), 'utf8'), `${name} is stale: run generate.ts`).toBe(content);
    }
  });

  it('has the size and mix the evaluation relies on', () => {
    const { corpus, queries, qrels } = buildDataset();
    expect(corpus.length).toBeGreaterThanOrEqual(1000);
    expect(queries.length).toBeGreaterThanOrEqual(300);
    expect(new Set(corpus.map((d) => d.text)).size).toBe(corpus.length);
    const ids = new Set(corpus.map((d) => d._id));
    for (const [, doc] of qrels) expect(ids.has(doc)).toBe(true);
    for (const type of ['single-hop', 'multi-hop', 'temporal', 'correction', 'person']) {
      const ofType = queries.filter((q) => q.metadata.type === type);
      const dev = ofType.filter((q) => q.metadata.split === 'dev').length;
      expect(ofType.length, type).toBeGreaterThanOrEqual(30);
      expect(Math.abs(dev / ofType.length - 0.4), type).toBeLessThan(0.03);
    }
    const multiHop = queries.filter((q) => q.metadata.type === 'multi-hop').map((q) => q._id);
    for (const id of multiHop) {
      expect(qrels.filter(([q, , score]) => q === id && score === 2).length).toBeGreaterThanOrEqual(2);
    }
  });
});

describe('relative dates', () => {
  // Wednesday 14 February 2024.
  const day = sessionDay(new Date(Date.UTC(2024, 1, 14, 9, 30)));

  it('names past working days the way people say them', () => {
    expect(day.ago(1)).toBe('yesterday');
    expect(day.ago(2)).toBe('on Monday');
    expect(day.ago(3)).toBe('last Friday');
    expect(day.dayName(-3)).toBe('Friday 9 February');
  });

  it('skips weekends when counting back', () => {
    expect(
      workdaysBefore(new Date(Date.UTC(2024, 1, 12)), 1)
        .toISOString()
        .slice(0, 10),
    ).toBe('2024-02-09');
    expect(sessionDay(new Date(Date.UTC(2024, 1, 12))).ago(1)).toBe('last Friday');
  });
});
