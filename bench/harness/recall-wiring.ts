import type { INestApplicationContext } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Client } from 'pg';
import { type AppConfig } from '@app/config';
import { TransactionRunner } from '@app/persistence';
import { EMBEDDER_PROVIDER, type EmbedderProvider } from '@app/embeddings';
import { RecallMemoriesUseCase, VECTOR_RECALL, type FusionSettings, type VectorRecall } from '@app/recall';
import { TextIndexRegistry } from '@app/recall/testing';
import { MemoryVectorRepository } from '@app/recall/testing';
import { EmbeddingModelRepository } from '@app/embeddings/testing';
import { METRICS_REGISTRY } from '@app/observability';
import type { Registry } from 'prom-client';
import { rawTx } from '../recall/raw-tx';
import { parseTextLegCounts, TEXT_LEG_METRIC, type TextLegCounts } from '../recall/text-leg-counts';
import { activeModel, type ActiveModel } from './bulk-loader';

/** What the benchmark drives, taken from the running app wherever the app provides it. */
export interface RecallWiring {
  readonly recall: RecallMemoriesUseCase;
  /** False while MemoriesModule does not provide VECTOR_RECALL: recall then runs the text leg only. */
  readonly vectorLegWired: boolean;
  /** The app's vector leg itself, when wired (to time its query preparation alone). */
  readonly vectorRecall: VectorRecall | null;
  readonly vectors: MemoryVectorRepository;
  /** VECTOR_EXACT_SCAN_MAX_ROWS: where the exact plan's statement stops gathering candidates. */
  readonly exactScanMaxRows: number;
  readonly tx: TransactionRunner;
  readonly embedders: EmbedderProvider;
  /** The role requests run as (DATABASE_APP_ROLE), for the RLS variant of the floor. */
  readonly appRole: string;
  readonly notes: readonly string[];
  /** The configured fusion settings (the base the evaluation's tuning grid varies). */
  readonly fusion: FusionSettings;
  /** BM25's k1 and b (RECALL_BM25_K1/B), which the floor's index search uses too. */
  readonly bm25: { readonly k1: number; readonly b: number };
  /** The app's text indexes, to load a tenant's before timing (null: the app has none). */
  readonly textIndex: TextIndexRegistry | null;
  /** The app's count of text legs by where they ran, so far (null: no metrics registry). */
  textLegCounts(): Promise<TextLegCounts | null>;
}

/**
 * A provider if the app has it. Asked through ModuleRef: the application object's own `get` runs
 * inside Nest's exceptions zone, which exits the process on an unknown token instead of throwing.
 */
function optional<T>(app: INestApplicationContext, token: Parameters<ModuleRef['get']>[0]): T | null {
  try {
    return app.get(ModuleRef).get<unknown, T>(token, { strict: false });
  } catch {
    return null;
  }
}

export function resolveRecallWiring(app: INestApplicationContext, config: AppConfig): RecallWiring {
  const notes: string[] = [];
  const tx = app.get(TransactionRunner, { strict: false });
  // The app's own objects: the benchmark measures the composition the servers run.
  const recall = app.get(RecallMemoriesUseCase, { strict: false });
  const vectorRecall = app.get<VectorRecall>(VECTOR_RECALL, { strict: false });
  const vectorLegWired = true;
  const vectors = app.get(MemoryVectorRepository, { strict: false });
  const embedders = app.get<EmbedderProvider>(EMBEDDER_PROVIDER, { strict: false });
  const metrics = optional<Registry>(app, METRICS_REGISTRY);
  return {
    fusion: config.recall.fusion,
    bm25: config.recall.bm25,
    textIndex: optional<TextIndexRegistry>(app, TextIndexRegistry),
    textLegCounts: async () =>
      metrics
        ? parseTextLegCounts(await metrics.getSingleMetricAsString(TEXT_LEG_METRIC).catch(() => ''))
        : null,
    recall,
    vectorLegWired,
    vectorRecall,
    vectors,
    exactScanMaxRows: config.embeddings.exactScanMaxRows,
    tx,
    embedders,
    appRole: config.database.appRole,
    notes,
  };
}

/**
 * The active model as the app registered it at boot; if the app does not register models yet,
 * registers the configured one the way the registry does (row + partial HNSW index).
 */
export async function ensureActiveModel(pg: Client, embedders: EmbedderProvider): Promise<ActiveModel> {
  const { rows } = await pg.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM embedding_models WHERE status = 'active'`,
  );
  if ((rows[0]?.n ?? 0) === 0) {
    const embedder = await embedders.get(embedders.defaultModelId);
    const registry = new EmbeddingModelRepository();
    const tx = rawTx(pg);
    await pg.query('BEGIN');
    try {
      await registry.lockRegistry(tx);
      await registry.insert(tx, { id: embedder.modelId, dimensions: embedder.dimensions, status: 'active' });
      await registry.ensureIndex(tx, { id: embedder.modelId, dimensions: embedder.dimensions });
      await pg.query('COMMIT');
    } catch (error) {
      await pg.query('ROLLBACK');
      throw error;
    }
  }
  return activeModel(pg);
}
