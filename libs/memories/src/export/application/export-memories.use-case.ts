import { Injectable, Logger } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { TransactionRunner } from '@app/persistence';
import { AuditWriter, type Principal } from '@app/tenancy';
import { MemoryExportRepository } from '../adapters/memory-export.repository';
import type { ExportInput } from '../domain/memory-export';
import { exportEncoder } from './export-encoders';
import { ExportStream, ExportStreamClosedError } from './export-stream';

/** Rows fetched from the server-side cursor per round trip. */
export const EXPORT_BATCH = 1000;

export interface MemoryExport {
  readonly stream: Readable;
  readonly contentType: string;
  readonly fileExtension: string;
}

/**
 * Streams the caller's own memories (never team or shared ones) in one read transaction through a
 * server-side cursor, so the export is one consistent snapshot and memory stays at about one batch.
 * Resolves once the cursor is open, so setup errors still become HTTP errors; a failure after that
 * truncates the stream (the reader never gets a well-formed partial export).
 */
@Injectable()
export class ExportMemoriesUseCase {
  private readonly logger = new Logger('ExportMemories');

  constructor(
    private readonly tx: TransactionRunner,
    private readonly repository: MemoryExportRepository,
    private readonly audit: AuditWriter,
  ) {}

  async execute(principal: Principal, input: ExportInput): Promise<MemoryExport> {
    const encoder = exportEncoder(input.format);
    const out = new ExportStream();
    let streaming = false;
    let started!: () => void;
    const opened = new Promise<void>((resolve) => {
      started = () => {
        streaming = true;
        resolve();
      };
    });
    // The rows are read in one read-only transaction (a replica may serve it); the export is audited
    // on the primary once every row was read.
    const exported = this.tx
      .inTenant(
        principal,
        async (tx) => {
          await this.repository.open(principal, tx, { ...input, byCategory: input.format === 'markdown' });
          started();
          await out.write(encoder.begin());
          let count = 0;
          for (;;) {
            const batch = await this.repository.fetch(tx, EXPORT_BATCH);
            count += batch.length;
            await out.write(encoder.rows(batch));
            if (batch.length < EXPORT_BATCH) break;
          }
          await this.repository.close(tx);
          return count;
        },
        { readOnly: 'streamed' },
      )
      .then(async (count) => {
        await this.tx.inTenant(principal, (tx) =>
          this.audit.record(principal, tx, {
            action: 'memory.export',
            targetType: 'memory',
            details: { format: input.format, count, include_deleted: input.includeDeleted },
          }),
        );
        await out.write(encoder.end());
      });
    // The body is only complete once the transaction has committed, never before.
    const done = exported.then(() => out.end());
    done.catch((error: unknown) => {
      if (streaming && !(error instanceof ExportStreamClosedError)) {
        this.logger.error(`memory export failed mid-stream: ${String(error)}`);
      }
      out.fail(error);
    });
    await Promise.race([opened, done]);
    return { stream: out.readable, contentType: encoder.contentType, fileExtension: encoder.fileExtension };
  }
}
