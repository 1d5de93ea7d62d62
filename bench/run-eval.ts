import 'reflect-metadata';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import type { Client } from 'pg';
import { ImportMemoriesUseCase } from '@app/memories';
import { MemoryNeighbourRepository, MemoryTextSearchRepository } from '@app/recall/testing';
import { type Principal } from '@app/tenancy';
import { beirSplits, readBeirDataset } from './eval/beir-dataset';
import { importCorpus } from './eval/corpus-import';
import { renderEvalReport, type EvalResults } from './eval/eval-report';
import { renderEvalSummary } from './eval/eval-summary';
import { describeFusion, fusionGrid, tuneFusion } from './eval/fusion-tuning';
import { evaluateRetrieval } from './eval/retrieval-eval';
import { parseFlags, SERVICE_FLAGS, SERVICE_HELP, serviceOptions, stringFlag } from './harness/bench-options';
import { connectRaw, createBenchDatabase } from './harness/bench-database';
import { createBenchTenant } from './harness/bench-tenant';
import { ensureActiveModel, resolveRecallWiring, type RecallWiring } from './harness/recall-wiring';
import { removeQueueKeys, startServiceStack, type ServiceStack } from './harness/service-stack';
import { describeMachine } from './report/machine';

const DATASETS_DIR = 'bench/datasets';

const FLAGS = {
  ...SERVICE_FLAGS,
  // The quality numbers are the shipped default model's (the load benchmarks default to glove-sif-100d).
  model: { type: 'string', default: 'use-lite-512d' },
  dataset: { type: 'string', default: 'all' },
  split: { type: 'string', default: 'test' },
  out: { type: 'string', default: 'bench/results' },
  tune: { type: 'boolean', default: false },
  'thread-tags': { type: 'string', default: 'on' },
  'thread-window': { type: 'string' },
} as const;

const HELP = `npm run eval -- [options]
  --dataset DIR[,DIR]  BEIR folders: corpus.jsonl, queries.jsonl, qrels/<split>.tsv; "all" (default) runs
                       every folder under ${DATASETS_DIR}
  --split NAME[,NAME]  qrels files to score against: dev, test, or "all" for every split a set has
                       (default test); a set without the split is skipped
  --out DIR            where eval-<dataset>-<split>.md/.json and eval-summary.md go (default bench/results)
  --tune               also try a grid of fusion settings on each set's dev split (hybrid never below a
                       leg on any question type first, then recall@10 + recall@5)
                       and write fusion-tuning-<dataset>.md/.json; the defaults are then set by hand
  --thread-tags on|off|both
                       store conversation turns with their session's thread tag (on, default), without
                       it (off: threads by time alone; results as <dataset>-untagged), or both
  --thread-window MIN  RECALL_THREAD_WINDOW_MINUTES for the run (default: the service's, 0 = only tags)
${SERVICE_HELP.replace('(default glove-sif-100d)', '(default use-lite-512d)')}`;

/** Large enough for BEIR documents; the service default (16 KiB) is a policy, not under test. */
const MAX_CONTENT_BYTES = 262_144;

const log = (line: string) => process.stderr.write(`[eval] ${line}\n`);

function datasetFolders(flag: string): string[] {
  if (flag !== 'all') return flag.split(',').map((f) => resolve(f.trim()));
  return readdirSync(resolve(DATASETS_DIR))
    .map((name) => resolve(DATASETS_DIR, name))
    .filter((dir) => existsSync(join(dir, 'corpus.jsonl')))
    .sort();
}

function threadTagModes(flag: string): boolean[] {
  if (flag === 'on') return [true];
  if (flag === 'off') return [false];
  if (flag === 'both') return [true, false];
  throw new Error(`--thread-tags: expected on, off or both, got ${flag}`);
}

function splitsOf(folder: string, flag: string): string[] {
  const available = beirSplits(folder);
  if (flag === 'all') return available;
  return flag
    .split(',')
    .map((s) => s.trim())
    .filter((s) => available.includes(s));
}

/** One set: its corpus imported once as one user's memories, then every requested split scored. */
async function evaluateFolder(options: {
  folder: string;
  splits: readonly string[];
  /** False: conversation turns without their thread tag (the set is named `<name>-untagged`). */
  threadTags: boolean;
  stack: ServiceStack;
  pg: Client;
  wiring: RecallWiring;
  model: EvalResults['model'];
  tuneInto?: string;
}): Promise<EvalResults[]> {
  const { stack, pg, wiring } = options;
  const sets = await Promise.all(options.splits.map((split) => readBeirDataset(options.folder, split)));
  const documents = sets[0].documents;
  const name = (set: { name: string }) => (options.threadTags ? set.name : `${set.name}-untagged`);
  const [principal] = await createBenchTenant(pg, {
    slug: `eval-${basename(options.folder)}${options.threadTags ? '' : '-untagged'}`,
    users: 1,
  });
  log(`${name(sets[0])}: importing ${documents.length} documents and waiting for the worker to embed them`);
  const corpus = await importCorpus({
    importer: stack.api.app.get(ImportMemoriesUseCase, { strict: false }),
    principal,
    documents,
    batchSize: stack.config.limits.maxImportBatch,
    maxContentBytes: MAX_CONTENT_BYTES,
    threadTags: options.threadTags,
    pg,
    modelId: options.model.id,
    log,
  });
  if (options.tuneInto !== undefined && beirSplits(options.folder).includes('dev'))
    await tuneOnDev({ ...options, outDir: options.tuneInto, principal, docsByMemory: corpus.docsByMemory });
  // Both in-memory indexes loaded (and the vectors' graph built) before any query, so every query
  // runs as a warm API process answers it, not through the Postgres fallback of a cold one.
  if (wiring.textIndex) {
    const ready = wiring.vectorLegWired
      ? await wiring.textIndex.warmVectors(principal, {
          modelId: options.model.id,
          dimensions: options.model.dimensions,
        })
      : await wiring.textIndex.warm(principal);
    log(`${sets[0].name}: in-memory indexes ${ready ? 'loaded' : 'not loaded (recall runs in Postgres)'}`);
  }
  const machine = await describeMachine(pg);
  const results: EvalResults[] = [];
  for (const dataset of sets) {
    log(`${dataset.name} (${dataset.split}): ${dataset.queries.length} queries × 3 modes`);
    const startedAt = new Date().toISOString();
    const { scores, outcomes, unanswered } = await evaluateRetrieval({
      recall: wiring.recall,
      principal,
      dataset,
      docsByMemory: corpus.docsByMemory,
      modes: ['text', 'vector', 'hybrid'],
    });
    results.push({
      dataset: name(dataset),
      split: dataset.split,
      startedAt,
      machine,
      model: options.model,
      documents: documents.length,
      memories: corpus.docsByMemory.size,
      skipped: corpus.skipped,
      queries: dataset.queries.length,
      importMs: corpus.importMs,
      indexMs: corpus.indexMs,
      vectorLegWired: wiring.vectorLegWired,
      scores,
      outcomes,
      unanswered,
    });
  }
  return results;
}

/** Scores every fusion setting of the grid on the set's dev split and writes the ranking. */
async function tuneOnDev(options: {
  folder: string;
  stack: ServiceStack;
  wiring: RecallWiring;
  principal: Principal;
  docsByMemory: ReadonlyMap<number, readonly string[]>;
  outDir: string;
}): Promise<void> {
  const dev = await readBeirDataset(options.folder, 'dev');
  const grid = fusionGrid(options.wiring.fusion);
  log(`${dev.name} (dev): tuning fusion, ${grid.length} settings × ${dev.queries.length} queries`);
  const app = options.stack.api.app;
  const text = app.get(MemoryTextSearchRepository, { strict: false });
  const neighbours = app.get(MemoryNeighbourRepository, { strict: false });
  const vectors = options.wiring.vectorRecall;
  const ranked = await tuneFusion({
    gather: async (query) => {
      const prepared = vectors ? await vectors.prepare(query.text) : null;
      return options.wiring.tx.inTenant(options.principal, async (tx) => {
        const filter = {};
        const textHits = await text.search(options.principal, tx, { text: query.text, k: 30, filter });
        const vectorHits = prepared
          ? await vectors!.search(options.principal, tx, prepared, { k: 30, filter })
          : [];
        const hits = [...new Set([...textHits, ...vectorHits].map((h) => h.memoryId))];
        return {
          text: textHits,
          vector: vectorHits.map((h) => ({ memoryId: h.memoryId, score: 1 - h.distance })),
          threads: await neighbours.around(
            options.principal,
            tx,
            hits,
            options.wiring.fusion.threadWindowMinutes * 60_000,
          ),
        };
      });
    },
    queries: dev.queries,
    qrels: dev.qrels,
    docsByMemory: options.docsByMemory,
    grid,
  });
  const rows = ranked.map(
    (r, i) =>
      `| ${i + 1} | ${describeFusion(r.settings)} | ${r.recallAt5.toFixed(3)} | ${r.recallAt10.toFixed(3)} | ${r.ndcgAt10.toFixed(3)} | ${r.legMargin >= 0 ? '+' : ''}${r.legMargin.toFixed(3)} |`,
  );
  const markdown = [
    `# Fusion tuning: \`${dev.name}\` dev split (${dev.queries.length} queries)`,
    '',
    "Best first: settings whose hybrid recall@10 is at least each single leg's (text with and without",
    'thread context, vector) on every question type, then by recall@10 + recall@5. "Leg margin" is the',
    'smallest such difference over the types.',
    '',
    '| # | settings | recall@5 | recall@10 | nDCG@10 | leg margin |',
    '| - | -------- | -------- | --------- | ------- | ---------- |',
    ...rows,
    '',
  ].join('\n');
  const stem = join(options.outDir, `fusion-tuning-${dev.name}`);
  await writeFile(`${stem}.md`, markdown);
  await writeFile(`${stem}.json`, `${JSON.stringify(ranked, null, 2)}\n`);
  process.stdout.write(`${rows.slice(0, 15).join('\n')}\n`);
  log(`wrote ${stem}.md and .json`);
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2), FLAGS);
  if (flags.help) return void process.stdout.write(`${HELP}\n`);
  const services = serviceOptions(flags);
  const plan = datasetFolders(stringFlag(flags, 'dataset')).map((folder) => ({
    folder,
    splits: splitsOf(folder, stringFlag(flags, 'split')),
  }));
  for (const { folder, splits } of plan)
    if (splits.length === 0)
      log(`${basename(folder)}: no qrels for split "${stringFlag(flags, 'split')}", skipped`);
  const runnable = plan.filter((p) => p.splits.length > 0);
  if (runnable.length === 0) throw new Error('nothing to evaluate: no dataset has the requested split');
  const outDir = resolve(stringFlag(flags, 'out'));
  await mkdir(outDir, { recursive: true });
  const db = await createBenchDatabase(services.adminUrl, 'eval');
  const queuePrefix = `eval-${process.pid}`;
  let stack: ServiceStack | undefined;
  try {
    stack = await startServiceStack({
      services,
      databaseUrl: db.url,
      queuePrefix,
      withWorker: true,
      env: {
        MAX_CONTENT_BYTES: String(MAX_CONTENT_BYTES),
        ...(typeof flags['thread-window'] === 'string'
          ? { RECALL_THREAD_WINDOW_MINUTES: flags['thread-window'] }
          : {}),
      },
    });
    const pg = await connectRaw(db.url, 'eval');
    const wiring = resolveRecallWiring(stack.api.app, stack.config);
    const model = await ensureActiveModel(pg, wiring.embedders);
    const all: EvalResults[] = [];
    const tagModes = threadTagModes(stringFlag(flags, 'thread-tags'));
    for (const { folder, splits } of runnable) {
      const tuneInto = flags.tune === true ? outDir : undefined;
      // Untagged runs only for sets of conversation turns (other sets carry no thread tags).
      const conversational = (await readBeirDataset(folder, splits[0])).documents.some((d) => d.turn);
      const modes = conversational ? tagModes : [true];
      const evaluated: EvalResults[] = [];
      for (const threadTags of modes)
        evaluated.push(
          ...(await evaluateFolder({
            folder,
            splits,
            threadTags,
            stack,
            pg,
            wiring,
            model,
            tuneInto: threadTags ? tuneInto : undefined,
          })),
        );
      for (const results of evaluated) {
        const markdown = renderEvalReport(results);
        process.stdout.write(`${markdown}\n`);
        const stem = join(outDir, `eval-${results.dataset}-${results.split}`);
        await writeFile(`${stem}.md`, markdown);
        await writeFile(`${stem}.json`, `${JSON.stringify(results, null, 2)}\n`);
        log(`wrote ${stem}.md and .json`);
        all.push(results);
      }
    }
    await pg.end();
    const summary = renderEvalSummary(all);
    await writeFile(join(outDir, 'eval-summary.md'), summary);
    process.stdout.write(summary);
    log(`wrote ${join(outDir, 'eval-summary.md')}`);
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
