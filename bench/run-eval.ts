import 'reflect-metadata';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ImportMemoriesUseCase } from '@app/memories';
import { readBeirDataset } from './eval/beir-dataset';
import { importCorpus } from './eval/corpus-import';
import { renderEvalReport, type EvalResults } from './eval/eval-report';
import { evaluateRetrieval } from './eval/retrieval-eval';
import { parseFlags, SERVICE_FLAGS, SERVICE_HELP, serviceOptions, stringFlag } from './harness/bench-options';
import { connectRaw, createBenchDatabase } from './harness/bench-database';
import { createBenchTenant } from './harness/bench-tenant';
import { ensureActiveModel, resolveRecallWiring } from './harness/recall-wiring';
import { removeQueueKeys, startServiceStack, type ServiceStack } from './harness/service-stack';
import { describeMachine } from './report/machine';

const FLAGS = {
  ...SERVICE_FLAGS,
  dataset: { type: 'string', default: 'bench/datasets/agent-memory' },
  split: { type: 'string', default: 'test' },
  out: { type: 'string', default: 'bench/results' },
} as const;

const HELP = `npm run eval -- [options]
  --dataset DIR   a BEIR folder: corpus.jsonl, queries.jsonl, qrels/<split>.tsv (default bench/datasets/agent-memory)
  --split NAME    qrels file to score against (default test)
  --out DIR       where eval-<dataset>.md and .json go (default bench/results)
${SERVICE_HELP}`;

/** Large enough for BEIR documents; the service default (16 KiB) is a policy, not under test. */
const MAX_CONTENT_BYTES = 262_144;

const log = (line: string) => process.stderr.write(`[eval] ${line}\n`);

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2), FLAGS);
  if (flags.help) return void process.stdout.write(`${HELP}\n`);
  const services = serviceOptions(flags);
  const dataset = await readBeirDataset(stringFlag(flags, 'dataset'), stringFlag(flags, 'split'));
  log(`${dataset.name}: ${dataset.documents.length} documents, ${dataset.queries.length} judged queries`);
  const startedAt = new Date().toISOString();
  const db = await createBenchDatabase(services.adminUrl, 'eval');
  const queuePrefix = `eval-${process.pid}`;
  let stack: ServiceStack | undefined;
  try {
    stack = await startServiceStack({
      services,
      databaseUrl: db.url,
      queuePrefix,
      withWorker: true,
      env: { MAX_CONTENT_BYTES: String(MAX_CONTENT_BYTES) },
    });
    const pg = await connectRaw(db.url, 'eval');
    const wiring = resolveRecallWiring(stack.api.app, stack.config);
    const active = await ensureActiveModel(pg, wiring.embedders);
    const [principal] = await createBenchTenant(pg, { slug: 'eval', users: 1 });
    log('importing the corpus through ImportMemoriesUseCase and waiting for the worker to embed it');
    const corpus = await importCorpus({
      importer: stack.api.app.get(ImportMemoriesUseCase, { strict: false }),
      principal,
      documents: dataset.documents,
      batchSize: stack.config.limits.maxImportBatch,
      maxContentBytes: MAX_CONTENT_BYTES,
      pg,
      modelId: active.id,
      log,
    });
    log(`running ${dataset.queries.length} queries × 3 modes`);
    const { scores, outcomes } = await evaluateRetrieval({
      recall: wiring.recall,
      principal,
      dataset,
      docsByMemory: corpus.docsByMemory,
      modes: ['text', 'vector', 'hybrid'],
    });
    const results: EvalResults = {
      dataset: dataset.name,
      startedAt,
      machine: await describeMachine(pg),
      model: active,
      documents: dataset.documents.length,
      memories: corpus.docsByMemory.size,
      skipped: corpus.skipped,
      queries: dataset.queries.length,
      importMs: corpus.importMs,
      indexMs: corpus.indexMs,
      vectorLegWired: wiring.vectorLegWired,
      scores,
      outcomes,
    };
    await pg.end();
    const markdown = renderEvalReport(results);
    process.stdout.write(markdown);
    const outDir = resolve(stringFlag(flags, 'out'));
    await mkdir(outDir, { recursive: true });
    await writeFile(join(outDir, `eval-${dataset.name}.md`), markdown);
    await writeFile(join(outDir, `eval-${dataset.name}.json`), `${JSON.stringify(results, null, 2)}\n`);
    log(`wrote ${join(stringFlag(flags, 'out'), `eval-${dataset.name}.md`)} and .json`);
  } finally {
    await stack?.stop().catch(() => undefined);
    if (!services.keepDatabase) await db.drop().catch(() => undefined);
    await removeQueueKeys(services.redisUrl, queuePrefix).catch(() => undefined);
  }
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `[eval] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
