import { Global, Module, type DynamicModule } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { APP_CONFIG, loadConfig } from '@app/config';
import {
  MEMORY_DEFAULTS,
  MEMORY_LIMITS,
  TeamDuplicateProbeSlot,
  type MemoryDefaults,
  type MemoryLimits,
} from '@app/memories';
import {
  MemoryUpdate,
  MemoryVersionWriteRepository,
  MemoryWriteModule,
  MemoryWriter,
  NewMemoryRows,
  SecretScreen,
  SecretStaging,
} from '@app/memories/testing';
import { ServerSecretRepository, TransactionRunner } from '@app/persistence';
import { NoSecretStore, SECRET_STORE, SecretDetector, type ConfiguredSecretStore } from '@app/secrets';

/** What the global PersistenceModule and ConfigModule give a composition, over a test's own runner. */
@Global()
@Module({})
class TestFoundationModule {
  static over(tx: TransactionRunner): DynamicModule {
    return {
      module: TestFoundationModule,
      providers: [
        { provide: TransactionRunner, useValue: tx },
        { provide: ServerSecretRepository, useValue: new ServerSecretRepository() },
        { provide: APP_CONFIG, useValue: loadConfig({ LOG_LEVEL: 'warn' }) },
      ],
      exports: [TransactionRunner, ServerSecretRepository, APP_CONFIG],
    };
  }
}

/**
 * The write path as Nest builds it (MemoryWriteModule) over the test's transaction runner, with
 * the ports a suite chooses: the secret store, the limits and the defaults.
 */
export async function memoryWritePartsFor(
  tx: TransactionRunner,
  limits: MemoryLimits,
  store: ConfiguredSecretStore = new NoSecretStore(),
  // The suites written before team visibility keep per-user memories unless they ask.
  defaults: MemoryDefaults = { defaultVisibility: 'private' },
): Promise<{
  writer: MemoryWriter;
  rows: NewMemoryRows;
  staging: SecretStaging;
  update: MemoryUpdate;
  /** Where recall's team duplicate probe plugs in (empty: a write folds exact duplicates only). */
  probeSlot: TeamDuplicateProbeSlot;
}> {
  const module = await Test.createTestingModule({
    imports: [TestFoundationModule.over(tx), MemoryWriteModule],
  })
    .overrideProvider(SECRET_STORE)
    .useValue(store)
    .overrideProvider(MEMORY_LIMITS)
    .useValue(limits)
    .overrideProvider(MEMORY_DEFAULTS)
    .useValue(defaults)
    .compile();
  return {
    writer: module.get(MemoryWriter),
    rows: module.get(NewMemoryRows),
    staging: module.get(SecretStaging),
    update: module.get(MemoryUpdate),
    probeSlot: module.get(TeamDuplicateProbeSlot),
  };
}

/** `memoryWritePartsFor`'s writer. */
export async function memoryWriterFor(
  tx: TransactionRunner,
  limits: MemoryLimits,
  store?: ConfiguredSecretStore,
  defaults?: MemoryDefaults,
): Promise<MemoryWriter> {
  return (await memoryWritePartsFor(tx, limits, store, defaults)).writer;
}

/** What `ImportMemoriesUseCase` needs besides the writer, audit, outbox and limits: the screen and version rows. */
export const importParts = (): [SecretScreen, MemoryVersionWriteRepository] => [
  new SecretScreen(new SecretDetector()),
  new MemoryVersionWriteRepository(),
];
