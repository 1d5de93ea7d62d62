import { afterEach, describe, expect, it, vi } from 'vitest';
import { DatabaseUnavailableError } from '../database-unavailable.error';
import type { TransactionRunner } from '../transaction-runner';
import type { Lsn } from './lsn';
import { READ_CONSISTENCY, type ReadConsistency } from './read-consistency';
import { ReplicaBehindError, ReplicaReads, type PrimaryReason } from './replica-reads';
import { LocalWritePositions, type WritePositions } from './write-positions';

const scope = {
  tenantId: '00000000-0000-4000-8000-000000000001',
  userId: '00000000-0000-4000-8000-000000000002',
};

/** A server whose position the test moves; `down` makes it unreachable. */
function server(recovering: boolean) {
  const state = { lsn: 100n as Lsn, down: false };
  const runner = {
    serverPosition: async () => {
      if (state.down) throw new DatabaseUnavailableError('no connection');
      return { recovering, lsn: state.lsn };
    },
  } as unknown as TransactionRunner;
  return { state, runner };
}

function setup(positions: WritePositions = new LocalWritePositions()) {
  const primary = server(false);
  const replica = server(true);
  const reads = new ReplicaReads(primary.runner, [{ name: 'replica-1', runner: replica.runner }], positions, {
    maxLagMs: 1_000,
    maxWaitMs: 50,
    pollMs: 100,
  });
  const served: Array<['replica' | 'primary', PrimaryReason | null]> = [];
  reads.listen({ read: (target, reason) => served.push([target, reason]) });
  const read = (
    onReplica: (awaited: unknown) => Promise<string> = async () => 'replica',
    rerunnable = true,
  ) =>
    reads.read(
      scope,
      { rerunnable },
      (_runner, awaited) => onReplica(awaited),
      async () => 'primary',
    );
  return { primary, replica, reads, served, read };
}

describe('ReplicaReads', () => {
  afterEach(() => vi.useRealTimers());

  it('sends reads to the primary until a replica has been checked, then to the replica', async () => {
    const { reads, read, served } = setup();
    expect(await read()).toBe('primary');
    await reads.start();
    expect(await read()).toBe('replica');
    expect(served).toEqual([
      ['primary', 'no_replica'],
      ['replica', null],
    ]);
    expect(reads.status()).toEqual([{ name: 'replica-1', inRotation: true, lagMs: 0, reason: null }]);
    await reads.stop();
  });

  it('takes a replica out of rotation once it is further behind than the bound, and back when it catches up', async () => {
    vi.useFakeTimers();
    const { primary, replica, reads, read } = setup();
    await reads.start();
    // The primary writes on; the replica stops replaying at 100.
    for (let i = 1; i <= 12; i++) {
      primary.state.lsn = 100n + BigInt(i);
      await vi.advanceTimersByTimeAsync(100);
    }
    expect(reads.status()[0]).toMatchObject({ inRotation: false, reason: 'lagging' });
    expect(reads.status()[0].lagMs).toBeGreaterThan(1_000);
    expect(await read()).toBe('primary');
    replica.state.lsn = primary.state.lsn;
    await vi.advanceTimersByTimeAsync(100);
    expect(reads.status()[0]).toMatchObject({ inRotation: true, lagMs: 0 });
    expect(await read()).toBe('replica');
    await reads.stop();
  });

  it('a replica that cannot be reached, or is no standby, is out; a read failing on it runs on the primary', async () => {
    vi.useFakeTimers();
    const { replica, reads, read, served } = setup();
    await reads.start();
    const shutdown = Object.assign(new Error('terminating connection due to administrator command'), {
      code: '57P01',
    });
    expect(
      await read(async () => {
        throw shutdown;
      }),
    ).toBe('primary');
    expect(served.at(-1)).toEqual(['primary', 'replica_failed']);
    expect(reads.status()[0]).toMatchObject({ inRotation: false, reason: 'failed under a read' });
    replica.state.down = true;
    await vi.advanceTimersByTimeAsync(100);
    expect(reads.status()[0]).toMatchObject({ inRotation: false, reason: 'unreachable' });
    replica.state.down = false;
    await vi.advanceTimersByTimeAsync(100);
    expect(reads.status()[0].inRotation).toBe(true);
    // A streamed read is not run twice: the failure is the request's.
    await expect(
      read(async () => {
        throw shutdown;
      }, false),
    ).rejects.toBe(shutdown);
    await reads.stop();
  });

  it('runs a read on the primary when the replica lacks a table or column it names (a migration not replayed yet), keeping the replica', async () => {
    const { reads, read, served } = setup();
    await reads.start();
    const missing = Object.assign(new Error('relation "api_key_hashes" does not exist'), { code: '42P01' });
    expect(
      await read(async () => {
        throw missing;
      }),
    ).toBe('primary');
    expect(served.at(-1)).toEqual(['primary', 'schema_behind']);
    expect(reads.status()[0].inRotation).toBe(true);
    // A streamed read is not run twice.
    await expect(
      read(async () => {
        throw missing;
      }, false),
    ).rejects.toBe(missing);
    await reads.stop();
  });

  it('passes other failures through (they are the read’s own)', async () => {
    const { reads, read } = setup();
    await reads.start();
    const refused = Object.assign(new Error('cannot execute INSERT in a read-only transaction'), {
      code: '25006',
    });
    await expect(
      read(async () => {
        throw refused;
      }),
    ).rejects.toBe(refused);
    expect(reads.status()[0].inRotation).toBe(true);
    await reads.stop();
  });

  it('asks the replica to have replayed the later of the request’s token and the user’s last write', async () => {
    const positions = new LocalWritePositions();
    const { reads, read, served } = setup(positions);
    await reads.start();
    const seen: unknown[] = [];
    const onReplica = async (awaited: unknown) => {
      seen.push(awaited);
      return 'replica';
    };
    await read(onReplica);
    await positions.record(scope, 150n, 10_000);
    await read(onReplica);
    const context: ReadConsistency = { required: 200n, written: null };
    await READ_CONSISTENCY.run(context, () => read(onReplica));
    expect(seen).toEqual([null, { lsn: 150n, maxWaitMs: 50 }, { lsn: 200n, maxWaitMs: 50 }]);
    // The user's last write becomes the request's: its later reads (and recall's index) must see it.
    const untokened: ReadConsistency = { required: null, written: null };
    await READ_CONSISTENCY.run(untokened, () => read(onReplica));
    expect(untokened.required).toBe(150n);
    // Not replayed in time: the primary answers.
    expect(
      await read(async () => {
        throw new ReplicaBehindError();
      }),
    ).toBe('primary');
    expect(served.at(-1)).toEqual(['primary', 'behind']);
    // A sync page that must include the user's write is the primary's: a standby's horizon may trail.
    expect(
      await reads.read(scope, { rerunnable: true, horizonBound: true }, onReplica, async () => 'primary'),
    ).toBe('primary');
    expect(served.at(-1)).toEqual(['primary', 'horizon']);
    await reads.stop();
  });

  it('records a write for the request and the user; when it cannot, reads go to the primary', async () => {
    const failing: WritePositions = {
      record: async () => {
        throw new Error('redis down');
      },
      latest: async () => null,
    };
    const ok = setup();
    await ok.reads.start();
    const context: ReadConsistency = { required: null, written: null };
    await READ_CONSISTENCY.run(context, () => ok.reads.wrote(scope, 300n));
    expect(context.written).toBe(300n);
    const seen: unknown[] = [];
    await ok.read(async (awaited) => {
      seen.push(awaited);
      return 'replica';
    });
    expect(seen).toEqual([{ lsn: 300n, maxWaitMs: 50 }]);
    await ok.reads.stop();

    const down = setup(failing);
    await down.reads.start();
    await down.reads.wrote(scope, 300n);
    expect(await down.read()).toBe('primary');
    expect(down.served.at(-1)).toEqual(['primary', 'positions_unknown']);
    await down.reads.stop();
  });
});
