import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';

export class ExportStreamClosedError extends Error {
  constructor() {
    super('the client closed the export stream');
    this.name = 'ExportStreamClosedError';
  }
}

/**
 * A text stream written with backpressure: `write` waits while the reader is slow, so the producer
 * holds about one batch in memory however large the export is.
 */
export class ExportStream {
  private readonly out = new PassThrough({ highWaterMark: 256 * 1024 });

  get readable(): Readable {
    return this.out;
  }

  async write(chunk: string): Promise<void> {
    if (this.out.destroyed) throw new ExportStreamClosedError();
    if (chunk === '' || this.out.write(chunk)) return;
    const abort = new AbortController();
    try {
      await Promise.race([
        once(this.out, 'drain', { signal: abort.signal }),
        once(this.out, 'close', { signal: abort.signal }).then(() => {
          throw new ExportStreamClosedError();
        }),
      ]);
    } finally {
      abort.abort();
    }
  }

  end(): void {
    this.out.end();
  }

  /** Ends the stream with an error: the reader sees a truncated body, never a valid partial one. */
  fail(error: unknown): void {
    this.out.destroy(error instanceof Error ? error : new Error(String(error)));
  }
}
