import { describe, expect, it } from 'vitest';
import { installationOfJobId } from './installation';
import { outboxJobId, slotJobId } from './job-queue.port';

describe('job ids', () => {
  it('differ between installations and between incarnations of one outbox row id', () => {
    const a = outboxJobId('aaaaaaaaaaaa', { id: '1', createdUs: '1763900000000000' });
    expect(a).toBe('o-aaaaaaaaaaaa-1-1763900000000000');
    expect(outboxJobId('bbbbbbbbbbbb', { id: '1', createdUs: '1763900000000000' })).not.toBe(a);
    // A database restored to an earlier point numbers rows again, but at another time.
    expect(outboxJobId('aaaaaaaaaaaa', { id: '1', createdUs: '1763900000000001' })).not.toBe(a);
  });

  it('carry the installation that added them, and no character BullMQ forbids', () => {
    const slot = slotJobId('0123456789ab', 'sync-purge', '2026-11-23T22:00:00.000Z');
    expect(slot).toBe('s-0123456789ab-sync-purge-20261123220000000');
    expect(installationOfJobId(slot)).toBe('0123456789ab');
    expect(installationOfJobId(outboxJobId('0123456789ab', { id: 7, createdUs: '5' }))).toBe('0123456789ab');
    expect(installationOfJobId('outbox-42')).toBeUndefined();
    expect(installationOfJobId(undefined)).toBeUndefined();
    expect(slot).not.toContain(':');
  });
});
