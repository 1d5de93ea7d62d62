import { EmbeddingsModule } from '@app/embeddings';
import { MemoriesModule } from '@app/memories';
import { SessionsModule } from '@app/sessions';
import { SyncModule } from '@app/sync';
import { WebhooksModule } from '@app/webhooks';
import { randomUUID } from 'node:crypto';
import { Test, type TestingModule } from '@nestjs/testing';
import { inject } from 'vitest';
import { ConfigModule, loadConfig } from '@app/config';
import { JobsRuntimeModule } from '@app/jobs';
import {
  CreateMemoryUseCase,
  DeleteMemoryUseCase,
  PurgeMemoryUseCase,
  RestoreMemoryUseCase,
} from '@app/memories';
import { EMBEDDER_PROVIDER, type EmbedderProvider } from '@app/embeddings';
import { PersistenceModule } from '@app/persistence';
import { ALL_SCOPES, MEMBER_SCOPES, type Principal } from '@app/tenancy';
import { createTestTenant, openTestDatabase } from '@app/testing';
import { createScratchDatabase } from './scratch-database';
import { UpdateMemoryUseCase } from '@app/memories';

export interface EmbeddingRow {
  model_id: string;
  owner_id: string;
  embedding: string;
  input_hash: string;
}

/**
 * A scratch database (the model registry is install-wide), the memory write use cases, and every
 * job handler running in-process as in embedded mode, optionally with a test embedder provider.
 */
export async function embeddingHarness(
  label: string,
  env: Record<string, string>,
  embedders?: EmbedderProvider,
) {
  const scratch = await createScratchDatabase(inject('adminDatabaseUrl'), label);
  const db = await openTestDatabase(scratch.url, 6);
  const config = loadConfig({
    DATABASE_URL: scratch.url,
    OUTBOX_POLL_INTERVAL_MS: '50',
    RUN_MIGRATIONS: 'false',
    LOG_LEVEL: 'warn',
    // The limits these suites were written for.
    MAX_CONTENT_BYTES: '4096',
    MAX_IMPORT_BATCH: '10',
    MAX_LIST_LIMIT: '100',
    ...env,
  });
  let builder = Test.createTestingModule({
    imports: [
      ConfigModule.forRoot(config),
      PersistenceModule.forRoot({ applicationName: `test-${label}`, migrate: false }),
      JobsRuntimeModule.forRoot({ role: 'api' }),
      // Every module that declares a @HandlesJob method, as the worker composes them.
      EmbeddingsModule,
      MemoriesModule,
      SyncModule,
      WebhooksModule,
      SessionsModule,
    ],
  });
  if (embedders) builder = builder.overrideProvider(EMBEDDER_PROVIDER).useValue(embedders);
  const app: TestingModule = await builder.compile();
  await app.init();
  const tenant = await createTestTenant(db, label.replace(/_/g, '-'));
  const principal = async (name: string, admin = false): Promise<Principal> => ({
    ...(await tenant.addUser(name)),
    tenantSlug: tenant.slug,
    keyId: randomUUID(),
    scopes: admin ? ALL_SCOPES : MEMBER_SCOPES,
  });
  const embeddingsOf = async (memoryId: number) =>
    (
      await db.tx.asSystem((tx) =>
        tx.query<EmbeddingRow>(
          `SELECT model_id, owner_id, embedding::text AS embedding, encode(input_hash, 'hex') AS input_hash
             FROM memory_embeddings WHERE memory_id = $1 ORDER BY model_id`,
          [memoryId],
        ),
      )
    ).rows;
  return {
    url: scratch.url,
    db,
    app,
    tenant,
    principal,
    embeddingsOf,
    // The app's own use cases: the composition the servers run.
    create: app.get(CreateMemoryUseCase),
    update: app.get(UpdateMemoryUseCase),
    remove: app.get(DeleteMemoryUseCase),
    purge: app.get(PurgeMemoryUseCase),
    restore: app.get(RestoreMemoryUseCase),
    close: async () => {
      await app.close();
      await db.close();
      await scratch.drop();
    },
  };
}

export type EmbeddingHarness = Awaited<ReturnType<typeof embeddingHarness>>;
