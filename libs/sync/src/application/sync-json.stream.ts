import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import { presentSyncedMemory, presentSyncTombstone } from '../contracts/sync.schemas';
import type { SeedDumpHeader, SyncedMemory, SyncTombstone } from '../domain/sync';

export class SyncStreamClosedError extends Error {
  constructor() {
    super('the client closed the sync stream');
    this.name = 'SyncStreamClosedError';
  }
}

/**
 * Writes a seed sync answer as JSON, piece by piece, honouring backpressure: the producer waits
 * while the client is slow, so memory stays at about one batch however many rows there are.
 * Shape: `{"next_cursor", "server_time", "tombstones":[…], "memories":[…]}`.
 */
export class SyncJsonWriter {
  private readonly out = new PassThrough({ highWaterMark: 256 * 1024 });
  private first = true;

  get stream(): Readable {
    return this.out;
  }

  async begin(header: SeedDumpHeader, tombstones: readonly SyncTombstone[]): Promise<void> {
    const head =
      `{"next_cursor":${JSON.stringify(header.nextCursor)},"server_time":${JSON.stringify(header.serverTime)},` +
      `"tombstones":${JSON.stringify(tombstones.map(presentSyncTombstone))},"memories":[`;
    await this.write(head);
  }

  async rows(memories: readonly SyncedMemory[]): Promise<void> {
    if (memories.length === 0) return;
    const body = memories.map((m) => JSON.stringify(presentSyncedMemory(m))).join(',');
    await this.write(this.first ? body : `,${body}`);
    this.first = false;
  }

  async end(): Promise<void> {
    await this.write(']}');
    this.out.end();
  }

  /** Ends the stream with an error: the client sees a truncated body, never a valid partial one. */
  fail(error: unknown): void {
    this.out.destroy(error instanceof Error ? error : new Error(String(error)));
  }

  private async write(chunk: string): Promise<void> {
    if (this.out.destroyed) throw new SyncStreamClosedError();
    if (this.out.write(chunk)) return;
    const abort = new AbortController();
    try {
      await Promise.race([
        once(this.out, 'drain', { signal: abort.signal }),
        once(this.out, 'close', { signal: abort.signal }).then(() => {
          throw new SyncStreamClosedError();
        }),
      ]);
    } finally {
      abort.abort();
    }
  }
}
