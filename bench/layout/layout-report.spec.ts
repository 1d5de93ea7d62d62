import { describe, expect, it } from 'vitest';
import { summariseLatencies } from '../metrics';
import { layoutRatio, pairCells, renderLayoutReport, type QueryCell } from './layout-report';

const cell = (
  query: string,
  tenant: QueryCell['tenant'],
  layout: QueryCell['layout'],
  p50: number,
): QueryCell => ({
  query,
  tenant,
  layout,
  prepared: summariseLatencies([p50]),
  genericShare: 0.5,
  unprepared: summariseLatencies([p50 * 2]),
  planningMs: p50 / 10,
});

describe('layout report', () => {
  it('divides partitioned by plain, NaN when a side is missing or zero', () => {
    expect(layoutRatio(2, 3)).toBe(1.5);
    expect(layoutRatio(undefined, 3)).toBeNaN();
    expect(layoutRatio(0, 3)).toBeNaN();
  });

  it('pairs the layouts of each query and tenant in first-seen order', () => {
    const pairs = pairCells([
      cell('get', 'small', 'plain', 1),
      cell('get', 'big', 'plain', 2),
      cell('get', 'small', 'partitioned', 3),
    ]);
    expect(pairs.map((p) => [p.tenant, p.plain?.prepared.p50, p.partitioned?.prepared.p50])).toEqual([
      ['small', 1, 3],
      ['big', 2, undefined],
    ]);
  });

  it('renders load, latency and planning tables with ratios', () => {
    const md = renderLayoutReport({
      rows: 1000,
      partitions: 16,
      iterations: 10,
      shape: 'shape',
      tenantRows: { small: 5, big: 500 },
      machine: 'machine',
      loads: [
        { layout: 'plain', seconds: 2, heapBytes: 1, indexBytes: 1, totalBytes: 2 * 1024 * 1024 },
        { layout: 'partitioned', seconds: 4, heapBytes: 1, indexBytes: 1, totalBytes: 3 * 1024 * 1024 },
      ],
      cells: [
        cell('get', 'small', 'plain', 1),
        cell('get', 'small', 'partitioned', 2),
        cell('scan', 'all', 'plain', 4),
      ],
    });
    expect(md).toContain('| hash × 16 | 4.0 s | 250');
    expect(md).toContain('1.50×');
    expect(md).toContain('| generic plans plain / part. |');
    expect(md).toMatch(
      /\| get +\| small \(5 rows\) +\| 1\.00 \/ 1\.00 \/ 1\.00 +\| 2\.00 \/ 2\.00 \/ 2\.00 +\| 2\.00× +\| 2\.00× /,
    );
    expect(md).toMatch(/\| scan +\| all .*\| n\/a /);
  });
});
