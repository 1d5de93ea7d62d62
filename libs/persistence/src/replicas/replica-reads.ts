import { Logger } from '@nestjs/common';
import { isConnectionLoss } from '../database-unavailable.error';
import type { TransactionRunner } from '../transaction-runner';
import type { TenantScope } from '../tx';
import { laterLsn, type Lsn } from './lsn';
import { recordWritten, requiredPosition, requireForRequest } from './read-consistency';
import type { WritePositions } from './write-positions';

export interface ReplicaReadsOptions {
  /** A replica further behind the primary than this is out of rotation until it catches up. */
  readonly maxLagMs: number;
  /** How long a read that must see a newer write waits for a replica to replay it. */
  readonly maxWaitMs: number;
  /** How often each replica's position is checked; default a quarter of `maxLagMs`, at most 1 s. */
  readonly pollMs?: number;
}

/** A replica's standing, for readiness details and metrics. */
export interface ReplicaStatus {
  readonly name: string;
  readonly inRotation: boolean;
  /** How far behind the primary it was when last checked; null before its first check. */
  readonly lagMs: number | null;
  /** Why it is out of rotation. */
  readonly reason: string | null;
}

/** Why a read that could have gone to a replica went to the primary. */
export type PrimaryReason =
  'no_replica' | 'behind' | 'horizon' | 'replica_failed' | 'schema_behind' | 'positions_unknown';

export interface ReplicaReadsListener {
  read(target: 'replica' | 'primary', reason: PrimaryReason | null): void;
}

/** Thrown inside a replica's transaction that could not wait long enough for the position it needed. */
export class ReplicaBehindError extends Error {
  constructor() {
    super('the replica has not replayed the position the read needs');
  }
}

/** A position the work must see on its connection before it reads, waiting at most `maxWaitMs`. */
export interface AwaitedPosition {
  readonly lsn: Lsn;
  readonly maxWaitMs: number;
}

/**
 * A table, column or function the read names is missing (42P01, 42703, 42883): during a rollout a replica
 * may not have replayed the migration the new code needs yet. The primary has it; the replica stays in
 * rotation for reads that do not need it.
 */
const SCHEMA_BEHIND = /^(42P01|42703|42883)$/;

/** Too many connections (53300), or a replayed change conflicted with the read (40001). */
const REPLICA_REFUSALS = /^(53300|40001)$/;

/**
 * The replica could not answer: the connection was refused, lost or cut by its shutdown (however
 * the driver reports it), it had no connection to spare, or the read conflicted with replay. The
 * same read may be answered by the primary.
 */
function isReplicaFailure(error: unknown): boolean {
  return isConnectionLoss(error) || hasCode(error, REPLICA_REFUSALS);
}

/** Whether `error`, or the driver error TypeORM wraps, carries a SQLSTATE matching `codes`. */
function hasCode(error: unknown, codes: RegExp): boolean {
  const failure = error as { code?: unknown; driverError?: { code?: unknown } } | null | undefined;
  return [failure?.code, failure?.driverError?.code].some((c) => typeof c === 'string' && codes.test(c));
}

/** Longest wait for one position check, connecting included. */
const CHECK_TIMEOUT_MS = 1_000;

/** `promise`, or a failure once `ms` have passed. */
async function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  promise.catch(() => undefined);
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

class Replica {
  inRotation = false;
  lagMs: number | null = null;
  reason: string | null = 'not checked yet';

  constructor(
    readonly name: string,
    readonly runner: TransactionRunner,
    readonly connect: () => Promise<void>,
  ) {}

  out(reason: string): void {
    this.inRotation = false;
    this.reason = reason;
  }
}

/**
 * Routes read-only work to streaming replicas of the primary, and keeps every caller's own writes
 * visible to its later reads.
 *
 * - Rotation: each replica's replay position is compared with the primary's write positions sampled
 *   over time; one further behind than `maxLagMs`, unreachable, or no longer a standby is left out
 *   until a later check finds it well again. A read whose replica fails under it runs again on the
 *   primary (it only read), so a replica going away costs no request.
 * - Read-your-writes: a write's commit position is kept for the request (answered as a token, sent
 *   back by clients) and for the user (`WritePositions`, shared by the API processes). A read that
 *   must see a position first checks, on the connection it reads on, that the replica replayed it,
 *   waiting up to `maxWaitMs`; otherwise the primary answers.
 */
export class ReplicaReads {
  private readonly logger = new Logger('ReplicaReads');
  private readonly replicas: Replica[];
  private readonly samples: Array<{ at: number; lsn: Lsn }> = [];
  private readonly pollMs: number;
  private next = 0;
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private positionsFailedUntil = 0;
  private listener: ReplicaReadsListener | undefined;

  constructor(
    private readonly primary: TransactionRunner,
    replicas: ReadonlyArray<{ name: string; runner: TransactionRunner; connect?: () => Promise<void> }>,
    private readonly positions: WritePositions,
    private readonly options: ReplicaReadsOptions,
  ) {
    this.replicas = replicas.map((r) => new Replica(r.name, r.runner, r.connect ?? (async () => undefined)));
    this.pollMs = options.pollMs ?? Math.min(1_000, Math.max(50, Math.floor(options.maxLagMs / 4)));
  }

  /** Checks every replica now and then every `pollMs`, until `stop`. */
  async start(): Promise<void> {
    await this.poll();
    this.timer = setInterval(() => {
      this.polling ??= this.poll().finally(() => (this.polling = undefined));
    }, this.pollMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.polling;
  }

  listen(listener: ReplicaReadsListener): void {
    this.listener = listener;
  }

  status(): ReplicaStatus[] {
    return this.replicas.map((r) => ({
      name: r.name,
      inRotation: r.inRotation,
      lagMs: r.lagMs,
      reason: r.inRotation ? null : r.reason,
    }));
  }

  /**
   * Runs read-only work on a replica in rotation, or on the primary (`onPrimary`) when none may
   * answer: none in rotation, the caller's required position not replayed in time, the replica
   * failing under the read (when the work is `rerunnable`), the caller's last write unknown (its
   * store unreachable), or a `horizonBound` answer that must include a given write.
   */
  async read<T>(
    scope: TenantScope,
    work: { readonly rerunnable: boolean; readonly horizonBound?: boolean },
    onReplica: (runner: TransactionRunner, awaited: AwaitedPosition | null) => Promise<T>,
    onPrimary: () => Promise<T>,
  ): Promise<T> {
    // Known first, wherever the read runs: recall's in-process index must not answer the request
    // from before a write it has to see, even when the primary serves it.
    let required: Lsn | null;
    try {
      if (Date.now() < this.positionsFailedUntil) throw new Error('write positions were not recorded');
      required = laterLsn(requiredPosition(), await this.positions.latest(scope));
      requireForRequest(required);
    } catch {
      // Unknown: the request may have to see any recent write.
      requireForRequest(0n);
      return this.onPrimary('positions_unknown', onPrimary);
    }
    // A standby's settled horizon may trail what it has replayed: a horizon-bound answer (a sync
    // page) that must include a given write comes from the primary.
    if (required !== null && work.horizonBound) return this.onPrimary('horizon', onPrimary);
    const replica = this.pick();
    if (!replica) return this.onPrimary('no_replica', onPrimary);
    try {
      const result = await onReplica(
        replica.runner,
        required === null ? null : { lsn: required, maxWaitMs: this.options.maxWaitMs },
      );
      this.listener?.read('replica', null);
      return result;
    } catch (error) {
      if (error instanceof ReplicaBehindError) return this.onPrimary('behind', onPrimary);
      if (work.rerunnable && hasCode(error, SCHEMA_BEHIND)) {
        this.logger.warn(
          { err: error, replica: replica.name },
          'the replica lacks part of the schema (a migration not replayed yet?); the primary answers',
        );
        return this.onPrimary('schema_behind', onPrimary);
      }
      if (!isReplicaFailure(error)) throw error;
      replica.out('failed under a read');
      if (!work.rerunnable) throw error;
      this.logger.warn(
        { err: error, replica: replica.name },
        'replica failed under a read; the primary answers',
      );
      return this.onPrimary('replica_failed', onPrimary);
    }
  }

  /**
   * A write of `scope` committed at `lsn`: the current request's later reads and the user's next
   * ones must see it. Until it is recorded for the user the write's answer does not go out. Null:
   * the write committed but its position could not be read.
   */
  async wrote(scope: TenantScope, lsn: Lsn | null): Promise<void> {
    try {
      if (lsn === null) throw new Error('the commit position could not be read');
      recordWritten(lsn);
      await this.positions.record(scope, lsn, this.positionTtlMs());
    } catch (error) {
      // Reads of this process go to the primary until no replica can still be behind this write.
      this.positionsFailedUntil = Date.now() + this.positionTtlMs();
      this.logger.warn({ err: error }, 'could not record a write position; reads go to the primary for now');
    }
  }

  /**
   * How long a write can matter: after it, every replica in rotation has replayed it (its lag was
   * checked within a poll and a bounded check ago).
   */
  private positionTtlMs(): number {
    return this.options.maxLagMs + 2 * (this.pollMs + CHECK_TIMEOUT_MS) + 1_000;
  }

  private async onPrimary<T>(reason: PrimaryReason, onPrimary: () => Promise<T>): Promise<T> {
    this.listener?.read('primary', reason);
    return onPrimary();
  }

  private pick(): Replica | undefined {
    for (let i = 0; i < this.replicas.length; i++) {
      const replica = this.replicas[(this.next + i) % this.replicas.length];
      if (replica.inRotation) {
        this.next = (this.next + i + 1) % this.replicas.length;
        return replica;
      }
    }
    return undefined;
  }

  private async poll(): Promise<void> {
    let sampled = false;
    try {
      const primary = await within(CHECK_TIMEOUT_MS, this.primary.serverPosition(CHECK_TIMEOUT_MS));
      if (primary.lsn !== null) this.samples.push({ at: Date.now(), lsn: primary.lsn });
      sampled = primary.lsn !== null;
    } catch {
      // The primary cannot be asked: a replica's lag cannot be told, only whether it answers.
    }
    const window = this.options.maxLagMs + 2 * this.pollMs;
    while (this.samples.length > 1 && this.samples[0].at < Date.now() - window) this.samples.shift();
    await Promise.all(
      this.replicas.map(async (replica) => {
        try {
          // Bounded as a whole: a pool waiting for a connection, or a host dropping packets, must not
          // hold the next checks back while the replica keeps serving.
          const position = await within(
            CHECK_TIMEOUT_MS,
            replica.connect().then(() => replica.runner.serverPosition(CHECK_TIMEOUT_MS)),
          );
          if (!position.recovering || position.lsn === null) return replica.out('not a standby');
          if (!sampled) return;
          replica.lagMs = this.lagOf(position.lsn);
          if (replica.lagMs > this.options.maxLagMs) return replica.out('lagging');
          if (!replica.inRotation) this.logger.log(`replica ${replica.name} in rotation`);
          replica.inRotation = true;
          replica.reason = null;
        } catch {
          if (replica.inRotation) this.logger.warn(`replica ${replica.name} unreachable; out of rotation`);
          replica.out('unreachable');
          replica.lagMs = null;
        }
      }),
    );
  }

  /**
   * How long ago the primary had written the oldest change the replica has not replayed: the time
   * of the earliest sample past its replay position (0 when it holds every sampled position).
   */
  private lagOf(replay: Lsn): number {
    const missing = this.samples.find((s) => s.lsn > replay);
    return missing ? Date.now() - missing.at : 0;
  }
}
