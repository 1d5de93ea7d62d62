import { describe, expect, it } from 'vitest';
import { summarisePostgresMemory } from './footprint';

describe('summarisePostgresMemory', () => {
  it('sums private memory, takes the most shared memory one process touched, and counts unreadable processes', () => {
    const summary = summarisePostgresMemory(128, [
      { rss: 30, anon: 4, shmem: 20 },
      null,
      { rss: 150, anon: 10, shmem: 128 },
    ]);
    expect(summary).toEqual({
      sharedBuffersMb: 128,
      processes: 3,
      readable: 2,
      privateMb: 14,
      sharedTouchedMb: 128,
    });
  });

  it('reports nothing readable when /proc shows none of them', () => {
    expect(summarisePostgresMemory(2048, [null, null])).toMatchObject({ readable: 0, privateMb: 0 });
  });
});
