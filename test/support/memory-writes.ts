import { OutboxWriter } from '@app/jobs';
import { type MemoryDefaults, type MemoryLimits } from '@app/memories';
import {
  IdempotencyRepository,
  MemoryIndexing,
  MemoryIndexRequestRepository,
  MemoryLifecycle,
  MemoryLinkRepository,
  MemoryLinkWriter,
  MemoryReadRepository,
  MemoryUpdate,
  MemoryWriteRepository,
  MemoryWriter,
  NewMemoryRows,
  SecretCleanupRepository,
  SecretScreen,
  SecretStaging,
} from '@app/memories/testing';
import { type TransactionRunner } from '@app/persistence';
import { NoSecretStore, SecretDetector, type ConfiguredSecretStore } from '@app/secrets';
import { AuditWriter } from '@app/tenancy';

/** The write path as Nest wires it (MemoryWriteModule), for tests that build use cases by hand. */
export function memoryWriterFor(
  tx: TransactionRunner,
  limits: MemoryLimits,
  store: ConfiguredSecretStore = new NoSecretStore(),
  // The suites written before team visibility keep per-user memories unless they ask.
  defaults: MemoryDefaults = { defaultVisibility: 'private' },
): MemoryWriter {
  return memoryWritePartsFor(tx, limits, store, defaults).writer;
}

/** `memoryWriterFor` with the writer's inner steps, for tests that drive one step on its own. */
export function memoryWritePartsFor(
  tx: TransactionRunner,
  limits: MemoryLimits,
  store: ConfiguredSecretStore = new NoSecretStore(),
  defaults: MemoryDefaults = { defaultVisibility: 'private' },
): { writer: MemoryWriter; rows: NewMemoryRows; staging: SecretStaging } {
  const reads = new MemoryReadRepository();
  const rows = new MemoryWriteRepository();
  const audit = new AuditWriter();
  const indexing = new MemoryIndexing(new MemoryIndexRequestRepository(), new OutboxWriter());
  const screen = new SecretScreen(new SecretDetector());
  const staging = new SecretStaging(store, tx, rows, new SecretCleanupRepository());
  const links = new MemoryLinkWriter(new MemoryLinkRepository(), audit);
  const newRows = new NewMemoryRows(rows, reads, indexing, audit, screen, staging, links, limits, defaults);
  const writer = new MemoryWriter(
    tx,
    newRows,
    new MemoryUpdate(tx, reads, rows, indexing, audit, screen, staging, limits),
    new MemoryLifecycle(tx, reads, rows, indexing, audit),
    indexing,
    staging,
    new IdempotencyRepository(),
  );
  return { writer, rows: newRows, staging };
}
