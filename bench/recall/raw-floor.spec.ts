import { describe, expect, it } from 'vitest';
import { FloorPartsRecorder, servedIds } from './raw-floor';

describe('servedIds', () => {
  it('takes the two legs alternately, best first, without repeats, up to the limit', () => {
    expect(servedIds([1, 2, 3, 4], [2, 5, 6, 7], 5)).toEqual([1, 2, 5, 3, 6]);
  });

  it('fills from one leg when the other runs dry', () => {
    expect(servedIds([], [9, 8, 7], 10)).toEqual([9, 8, 7]);
    expect(servedIds([1, 2, 3], [], 2)).toEqual([1, 2]);
  });
});

describe('FloorPartsRecorder', () => {
  it('answers each part’s median and passes the total through', () => {
    const recorder = new FloorPartsRecorder();
    const totals = [1, 2, 3].map((n) =>
      recorder.record({ embedMs: n, indexMs: n / 10, vectorMs: 2 * n, rowsMs: 3 * n, totalMs: 6.1 * n }),
    );
    expect(totals).toEqual([6.1, 12.2, 6.1 * 3]);
    expect(recorder.medians()).toEqual({ embedMs: 2, indexMs: 0.2, vectorMs: 4, rowsMs: 6 });
  });
});
