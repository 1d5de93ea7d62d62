import { OutboxWriter } from '@app/jobs';
import { AdminJobRepository } from '@app/jobs';
import { GetAdminJobUseCase } from '@app/jobs';
import { type TransactionRunner } from '@app/persistence';
import { AuditWriter } from '@app/tenancy';
import { EmbeddingModelRepository } from './adapters/embedding-model.repository';
import { StartReindexUseCase } from './application/start-reindex.use-case';
import type { EmbedderProvider } from './ports/embedder.port';

export interface ReindexUseCases {
  readonly startReindex: StartReindexUseCase;
  readonly getJob: GetAdminJobUseCase;
}

/** The reindex producer side without a Nest container, for the CLI (same use cases as the admin routes). */
export function createReindexUseCases(tx: TransactionRunner, embedders: EmbedderProvider): ReindexUseCases {
  const jobs = new AdminJobRepository();
  return {
    startReindex: new StartReindexUseCase(
      tx,
      embedders,
      new EmbeddingModelRepository(),
      jobs,
      new OutboxWriter(),
      new AuditWriter(),
    ),
    getJob: new GetAdminJobUseCase(tx, jobs),
  };
}
export { embedderProviderFactory as createEmbedderProvider } from './adapters/transformers-embedder';
