import { OutboxWriter } from '@app/jobs';
import { type TransactionRunner } from '@app/persistence';
import { SecretDetector, type ConfiguredSecretStore } from '@app/secrets';
import { AuditWriter } from '@app/tenancy';
import { MemoryIndexRequestRepository } from '../adapters/memory-index-request.repository';
import { MemoryRepository } from '../adapters/memory.repository';
import { ImportMemoriesUseCase } from '../application/import-memories.use-case';
import type { MemoryDefaults, MemoryLimits } from '../application/memory-limits';
import { MemoryWriter } from '../application/memory-writer';
import { MemoryLinkRepository } from '../links/adapters/memory-link.repository';
import { MemoryLinkWriter } from '../links/application/memory-link-writer';
import { SecretCleanupRepository } from '../secret-memories/adapters/secret-cleanup.repository';
import { SecretScreen } from '../secret-memories/application/secret-screen';
import { SecretStaging } from '../secret-memories/application/secret-staging';
import { MemoryExportRepository } from './adapters/memory-export.repository';
import { ExportMemoriesUseCase } from './application/export-memories.use-case';

export interface MemoryTransferUseCases {
  readonly export: ExportMemoriesUseCase;
  readonly import: ImportMemoriesUseCase;
}

export interface MemoryTransferOptions {
  readonly secretStore: ConfiguredSecretStore;
  readonly limits: MemoryLimits;
  readonly defaults: MemoryDefaults;
}

/** Export and import without a Nest container, for the CLI: the same wiring as MemoriesModule. */
export function createMemoryTransferUseCases(
  tx: TransactionRunner,
  options: MemoryTransferOptions,
): MemoryTransferUseCases {
  const memories = new MemoryRepository();
  const audit = new AuditWriter();
  const outbox = new OutboxWriter();
  const writer = new MemoryWriter(
    memories,
    new MemoryIndexRequestRepository(),
    outbox,
    audit,
    options.limits,
    new SecretScreen(new SecretDetector()),
    new SecretStaging(options.secretStore, tx, memories, new SecretCleanupRepository()),
    options.defaults,
    new MemoryLinkWriter(new MemoryLinkRepository(), audit),
  );
  return {
    export: new ExportMemoriesUseCase(tx, new MemoryExportRepository(), audit),
    import: new ImportMemoriesUseCase(tx, writer, audit, outbox, options.limits),
  };
}
