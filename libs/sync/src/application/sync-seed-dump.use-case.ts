import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { TransactionRunner } from '@app/persistence';
import { hasScope, type Principal } from '@app/tenancy';
import { MemorySyncRepository } from '../adapters/memory-sync.repository';
import { SYNC_SETTINGS, type SyncSettings } from '../domain/sync';
import { parseSince } from '../domain/sync-since';
import { SyncError, SyncErrorCode } from '../domain/sync.errors';
import { SyncCursorCodecProvider } from './sync-cursor-codec.provider';
import { SyncJsonWriter, SyncStreamClosedError } from './sync-json.stream';

/** Rows fetched from the server-side cursor per round trip. */
export const SEED_DUMP_BATCH = 1000;

export interface SeedDumpInput {
  /** Seed `?since=` as received; absent → the complete live set. */
  readonly since?: string;
}

/**
 * The seed-compatible sync calls, streamed and owner-scoped: no `since` → every live memory the
 * caller owns (the seed client deletes local rows missing from it, so it is never paginated);
 * `since` → every own row updated or deleted at or after `since` minus the configured overlap,
 * deleted ones included. Both carry a cursor and the server time read BEFORE the rows, so a client
 * switching to cursors or passing the time back as `since` never skips a change that raced the dump
 * (it may see one twice). The cursor goes on with what else the caller can see (team, shared).
 *
 * Resolves with the stream once the header is known, so setup errors still become HTTP errors.
 */
@Injectable()
export class SyncSeedDumpUseCase {
  private readonly logger = new Logger('SyncSeedDump');

  constructor(
    private readonly tx: TransactionRunner,
    private readonly repository: MemorySyncRepository,
    private readonly codecs: SyncCursorCodecProvider,
    @Inject(SYNC_SETTINGS) private readonly settings: SyncSettings,
  ) {}

  async execute(principal: Principal, input: SeedDumpInput): Promise<Readable> {
    const since = input.since === undefined ? undefined : parseSince(input.since);
    if (since === null) {
      throw new SyncError(
        SyncErrorCode.InvalidSince,
        'since must be an ISO-8601 date-time, e.g. 2025-01-31T12:00:00Z',
      );
    }
    const codec = await this.codecs.get();
    const writer = new SyncJsonWriter();
    const overlapMs = this.settings.sinceOverlapMs;

    let streaming = false;
    let started!: () => void;
    const header = new Promise<void>((resolve) => {
      started = () => {
        streaming = true;
        resolve();
      };
    });
    const dumped = this.tx.inTenant(
      principal,
      async (tx) => {
        const start = await this.repository.readStart(principal, tx);
        const tombstones =
          since === undefined ? [] : await this.repository.tombstonesSince(principal, tx, since, overlapMs);
        await this.repository.openDump(principal, tx, { since, overlapMs });
        // The copy now holds the caller's own rows as of the horizon and nothing else: the cursor
        // feed goes on with everything else it can see, from the beginning.
        const nextCursor = codec.encode({
          u: principal.userId,
          x: 0,
          m: 0,
          k: start.horizon,
          o: start.horizon,
          e: start.epoch,
          a: hasScope(principal, 'admin'),
        });
        // Hand the stream out before writing: a large header must not wait for a reader that
        // only attaches once this promise has resolved.
        started();
        await writer.begin({ nextCursor, serverTime: start.serverTime }, tombstones);
        for (;;) {
          const batch = await this.repository.fetchDump(tx, SEED_DUMP_BATCH);
          await writer.rows(batch);
          if (batch.length < SEED_DUMP_BATCH) break;
        }
        await this.repository.closeDump(tx);
      },
      { readOnly: 'streamed', horizonBound: true },
    );
    // The body is only complete once the transaction has committed, never before.
    const done = dumped.then(() => writer.end());
    done.catch((error: unknown) => {
      // Before the header the caller gets the error itself; after it, only the log does.
      if (streaming && !(error instanceof SyncStreamClosedError)) {
        this.logger.error(`seed sync dump failed mid-stream: ${String(error)}`);
      }
      writer.fail(error);
    });
    await Promise.race([header, done]);
    return writer.stream;
  }
}
