import { MemoryIndexRequestRepository } from '@app/memories/testing';
import { OutboxWriter } from '@app/jobs';
import { MemoryRepository } from '@app/memories/testing';
import { SecretCleanupRepository } from '@app/memories/testing';
import { type MemoryDefaults, type MemoryLimits } from '@app/memories';
import { MemoryLinkRepository, MemoryLinkWriter, MemoryWriter } from '@app/memories/testing';
import { SecretScreen } from '@app/memories/testing';
import { SecretStaging } from '@app/memories/testing';
import { UpdateMemoryUseCase } from '@app/memories';
import { type TransactionRunner } from '@app/persistence';
import { NoSecretStore, SecretDetector, type ConfiguredSecretStore } from '@app/secrets';
import { AuditWriter } from '@app/tenancy';

/** The write path as Nest wires it, for tests that build use cases by hand. */
export function memoryWriterFor(
  tx: TransactionRunner,
  limits: MemoryLimits,
  store: ConfiguredSecretStore = new NoSecretStore(),
  repo: MemoryRepository = new MemoryRepository(),
  // The suites written before team visibility keep per-user memories unless they ask.
  defaults: MemoryDefaults = { defaultVisibility: 'private' },
): MemoryWriter {
  return new MemoryWriter(
    repo,
    new MemoryIndexRequestRepository(),
    new OutboxWriter(),
    new AuditWriter(),
    limits,
    new SecretScreen(new SecretDetector()),
    new SecretStaging(store, tx, repo, new SecretCleanupRepository()),
    defaults,
    new MemoryLinkWriter(new MemoryLinkRepository(), new AuditWriter()),
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
