import { OutboxWriter } from '@app/jobs';
import { MemoryRepository } from '@app/memories/adapters/memory.repository';
import { SecretCleanupRepository } from '@app/memories/adapters/secret-cleanup.repository';
import type { MemoryLimits } from '@app/memories/application/memory-limits';
import { MemoryWriter } from '@app/memories/application/memory-writer';
import { SecretScreen } from '@app/memories/application/secret-screen';
import { SecretStaging } from '@app/memories/application/secret-staging';
import { UpdateMemoryUseCase } from '@app/memories/application/update-memory.use-case';
import type { TransactionRunner } from '@app/persistence';
import { NoSecretStore, SecretDetector, type ConfiguredSecretStore } from '@app/secrets';
import { AuditWriter } from '@app/tenancy';

/** The write path as Nest wires it, for tests that build use cases by hand. */
export function memoryWriterFor(
  tx: TransactionRunner,
  limits: MemoryLimits,
  store: ConfiguredSecretStore = new NoSecretStore(),
  repo: MemoryRepository = new MemoryRepository(),
): MemoryWriter {
  return new MemoryWriter(
    repo,
    new OutboxWriter(),
    new AuditWriter(),
    limits,
    new SecretScreen(new SecretDetector()),
    new SecretStaging(store, tx, repo, new SecretCleanupRepository()),
  );
}

export function updateUseCaseFor(
  tx: TransactionRunner,
  writer: MemoryWriter,
  limits: MemoryLimits,
  repo: MemoryRepository = new MemoryRepository(),
): UpdateMemoryUseCase {
  return new UpdateMemoryUseCase(
    tx,
    repo,
    writer,
    new AuditWriter(),
    new SecretScreen(new SecretDetector()),
    limits,
  );
}
