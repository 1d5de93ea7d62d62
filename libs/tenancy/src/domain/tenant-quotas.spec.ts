import { describe, expect, it } from 'vitest';
import { effectiveQuotas, nextUtcDay, QuotaError } from './tenant-quotas';

describe('tenant quotas', () => {
  it('takes the tenant’s own value where it has one (0 = unlimited), the default elsewhere', () => {
    const defaults = { maxMemories: 1000, maxMemoryBytes: 5_000_000, maxSessionsPerDay: 50 };
    expect(
      effectiveQuotas(defaults, { maxMemories: 0, maxMemoryBytes: null, maxSessionsPerDay: 10 }),
    ).toEqual({ maxMemories: 0, maxMemoryBytes: 5_000_000, maxSessionsPerDay: 10 });
  });

  it('refuses past a count quota with 429 and past the bytes quota with 413, naming the use', () => {
    expect(QuotaError.memories(1000, 1000)).toMatchObject({
      kind: 'too_many_requests',
      code: 'quota_exceeded',
      message: expect.stringMatching(/^Memory quota reached: the team stores 1,000 of 1,000 memories\./),
    });
    expect(QuotaError.memoryBytes(4_999_000, 2048, 5_000_000)).toMatchObject({
      kind: 'too_large',
      code: 'storage_quota_exceeded',
      message: expect.stringContaining('hold 4,999,000 of 5,000,000 bytes and this write adds 2,048'),
    });
  });

  it('says when the sessions-per-day count starts again: the next midnight UTC', () => {
    const now = new Date('2026-11-24T23:59:30.000Z');
    expect(nextUtcDay(now).toISOString()).toBe('2026-11-25T00:00:00.000Z');
    const error = QuotaError.sessionsPerDay(50, 50, now);
    expect(error.retryAfterSeconds).toBe(30);
    expect(error.message).toContain('starts again at 2026-11-25T00:00:00.000Z');
  });
});
