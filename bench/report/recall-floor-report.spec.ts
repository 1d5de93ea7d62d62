import { describe, expect, it } from 'vitest';
import type { HttpRow, HttpShapeResult } from '../phases/http-phase';
import type { LatencySummary } from '../metrics';
import { recallTable } from './http-report';
import {
  floorPartsCell,
  indexShareNotes,
  renderTextIndexTable,
  servedByIndex,
  textIndexCells,
} from './recall-floor-report';

const latency = (p50: number): LatencySummary => ({ count: 20, p50, p95: p50 * 2, p99: p50 * 3, mean: p50 });
const load = (perSecond: number, p50: number) => ({
  concurrency: 1,
  latency: latency(p50),
  perSecond,
  errors: 0,
  firstError: null,
  seconds: 1,
  calls: 22,
});

function recallRow(shape: string, concurrency: number, apiProcesses: number, share: number | null): HttpRow {
  return {
    shape,
    workload: 'recall',
    concurrency,
    apiProcesses,
    service: load(100 * apiProcesses, 8),
    cpu: { api: 3, postgres: 2.5, worker: 0 },
    floorName: 'hybrid recall floor',
    floor: load(400, 4),
    floorPostgresMs: 1.5,
    floorParts: { embedMs: 0.3, indexMs: 0.12, vectorMs: 3, rowsMs: 0.6 },
    indexShare: share,
  };
}

const shape = (label: string): HttpShapeResult => ({
  label,
  users: 20,
  memories: 10_000,
  visiblePerUser: 10_000,
  textIndex: { appLoadMs: null, floor: null },
  sqlTextLeg: null,
});

describe('recall floor cells', () => {
  it('lists the four parts in the order they run', () => {
    expect(floorPartsCell({ embedMs: 0.31, indexMs: 0.085, vectorMs: 12.34, rowsMs: 0.9 })).toBe(
      '0.31 · 0.09 · 12.3 · 0.90',
    );
  });

  it('flags a recall share short of the index, and says when it was not read', () => {
    expect(servedByIndex(1)).toBe('100%');
    expect(servedByIndex(0.9876)).toBe('**98.7%**');
    expect(servedByIndex(0)).toBe('**0%**');
    expect(servedByIndex(null)).toBe('n/a');
  });

  it('scales the index heap to 100k memories and gives both load times in seconds', () => {
    const use = { appLoadMs: 2500, floor: { memories: 25_000, bytes: 10 * 1024 * 1024, loadMs: 1234 } };
    expect(textIndexCells(use)).toEqual(['25,000', '10.0', '40.0', '1.23', '2.50']);
    expect(textIndexCells({ appLoadMs: null, floor: null })).toEqual(['n/a', 'n/a', 'n/a', 'n/a', 'n/a']);
    expect(renderTextIndexTable([{ label: 'team', use }]).split('\n')[2]).toContain('| team   | 25,000');
  });
});

describe('recallTable', () => {
  it('shows REST recall rows by shape, then concurrency, one API before two, against the floor', () => {
    const rows = [
      recallRow('team 10k', 16, 2, 1),
      recallRow('users', 1, 1, 1),
      recallRow('team 10k', 16, 1, 0.5),
      { ...recallRow('users', 4, 1, 1), workload: 'mcp recall' as const },
    ];
    const lines = recallTable({ rows, shapes: [shape('users'), shape('team 10k')] }).split('\n');
    expect(lines).toHaveLength(5);
    const cells = lines.slice(2).map((line) => line.split('|').map((c) => c.trim()));
    expect(cells.map((c) => [c[1], c[2], c[3]])).toEqual([
      ['users', '1', '1'],
      ['team 10k', '16', '1'],
      ['team 10k', '16', '2'],
    ]);
    expect(cells[1][7]).toBe('**50%**');
    expect(cells[2].slice(4, 12)).toEqual([
      '200',
      '8.00 / 16.0 / 24.0',
      '3.00 · 2.50 · 0.00',
      '100%',
      '400',
      '4.00 / 8.00 / 12.0',
      '0.30 · 0.12 · 3.00 · 0.60',
      '2.00×',
    ]);
  });
});

describe('indexShareNotes', () => {
  it('says nothing when every measured recall was served by the index', () => {
    expect(indexShareNotes([{ where: 'recall at 10,000', share: 1 }])).toEqual([]);
  });

  it('names each measurement that fell short, and each that could not be read', () => {
    const notes = indexShareNotes([
      { where: 'a', share: 1 },
      { where: 'b', share: 0.5 },
      { where: 'c', share: null },
    ]);
    expect(notes).toHaveLength(2);
    expect(notes[0]).toContain('b **50%**');
    expect(notes[0]).not.toContain('a ');
    expect(notes[1]).toContain('for: c.');
  });
});
