import { describe, expect, it } from 'vitest';
import { decideCapture } from './capture-decision';

describe('decideCapture', () => {
  const match = { id: 42 };

  it('skips what the user already has, whatever its kind', () => {
    for (const kind of ['remember', 'correction', 'decision'] as const) {
      expect(decideCapture(kind, { action: 'NOOP', match })).toEqual({ action: 'skip', reason: 'duplicate' });
    }
  });

  it('lets a correction supersede a close memory; a close note or decision is skipped', () => {
    expect(decideCapture('correction', { action: 'UPDATE', match })).toEqual({
      action: 'supersede',
      memoryId: 42,
    });
    expect(decideCapture('decision', { action: 'UPDATE', match })).toEqual({
      action: 'skip',
      reason: 'similar',
    });
    expect(decideCapture('remember', { action: 'UPDATE', match })).toEqual({
      action: 'skip',
      reason: 'similar',
    });
  });

  it('stores what is new, a correction without a match included', () => {
    expect(decideCapture('correction', { action: 'ADD' })).toEqual({ action: 'store' });
    expect(decideCapture('correction', { action: 'ADD', match })).toEqual({ action: 'store' });
    expect(decideCapture('correction', { action: 'UPDATE' })).toEqual({ action: 'store' });
    expect(decideCapture('remember', { action: 'ADD' })).toEqual({ action: 'store' });
  });
});
