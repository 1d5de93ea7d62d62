import 'reflect-metadata';
import { loadavg } from 'node:os';
import { CreateMemoryUseCase, ImportMemoriesUseCase } from '@app/memories';
import { loadModelById } from '@app/embeddings/testing';
import { generateMemories, take } from './corpus/memory-generator';
import {
  intFlag,
  parseFlags,
  SERVICE_FLAGS,
  SERVICE_HELP,
  serviceOptions,
  stringFlag,
} from './harness/bench-options';
import { connectRaw, createBenchDatabase } from './harness/bench-database';
import { createBenchTenant } from './harness/bench-tenant';
import { bulkLoadMemories, withoutExisting, withVectorIndexesRebuilt } from './harness/bulk-loader';
import { ensureActiveModel, resolveRecallWiring } from './harness/recall-wiring';
import { removeQueueKeys, startServiceStack, type ServiceStack } from './harness/service-stack';
import { FloorTextIndexes } from './recall/floor-text-index';
import { measureIndexThroughput } from './indexing/index-throughput';
import { measureStoreToSearchable } from './indexing/store-latency';
import { embeddedIds, sleep } from './indexing/wait-for-embeddings';
import type { BenchContext } from './phases/bench-context';
import { runRecallPhase } from './phases/recall-phase';
import { runEventIngestPhase } from './phases/event-ingest-phase';
import { runTeamRecallPhase } from './phases/team-recall-phase';
import { measureHttp, runHttpBench } from './http/run-http-bench';
import { writeReport } from './report/write-report';
import { renderBenchReport, type BenchResults, type LoadRow, type RecallRow } from './report/bench-report';
import { describeMachine } from './report/machine';

const USERS = 100;
/** Timed queries of the team run (at most; `--queries` lowers it): the index leg makes each cheap. */
const TEAM_QUERIES = 100;
const FLAGS = {
  ...SERVICE_FLAGS,
  quick: { type: 'boolean', default: false },
  sizes: { type: 'string' },
  'team-size': { type: 'string' },
  queries: { type: 'string' },
  'throughput-count': { type: 'string' },
  'store-seconds': { type: 'string' },
  'ingest-seconds': { type: 'string' },
  'ingest-only': { type: 'boolean', default: false },
  profile: { type: 'string' },
  http: { type: 'boolean', default: false },
  'without-http': { type: 'boolean', default: false },
  'http-seconds': { type: 'string' },
  'http-team-size': { type: 'string' },
  'team-endpoint-seconds': { type: 'string' },
  out: { type: 'string', default: 'bench/results' },
} as const;

const HELP = `npm run bench -- [options]
  --quick                 ~4 minutes: a 25k team, fewer queries and stores, HTTP at concurrency 1 and 16 only
  --sizes 10000,100000    memory counts of the 100-user recall latency runs (ascending; default 10000: the
                          team run and the HTTP part cover 100k visible memories)
  --team-size N           team-visible memories of the one-team run (default 100000, quick 25000; 0 skips it);
                          it times min(--queries, 100) queries
  --queries N             timed recall queries per size and configuration (default 150, quick 60; the forced-HNSW runs half)
  --throughput-count N    memories imported for the worker throughput run (default 2000, quick 600)
  --store-seconds N       seconds of stores at 100/s for store → searchable (default 10, quick 5)
  --ingest-seconds N      seconds of session event ingest at 1,000 events/s (default 5, quick 3; 0 skips it)
  --ingest-only           only the event ingest run (no memories loaded)
  --profile DIR           write V8 CPU profiles of the API and worker processes of the ingest run (with --http:
                          of the HTTP run's one-API processes) to DIR
  --http                  only the HTTP run (~5 minutes; quick ~2, concurrency 1 and 16 only): every REST/MCP
                          workload at concurrency 1, 4 and 16 against its raw floor, through the built API
                          and worker processes (results in latest-http.*)
  --without-http          leave the HTTP part out of the default run (it is in by default: the run's two shapes
                          plus the in-process run's team, 1 s per cell)
  --http-seconds N        timed seconds per workload and concurrency (default 1; --http alone: 2, quick 1)
  --http-team-size N      team-visible memories of the HTTP run's loaded team shape (default 10000)
  --team-endpoint-seconds N  timed seconds per list/get/sync/store cell (and its floor) of the team run,
                          through a built API and worker started for it (default 3, quick 1; 0 skips them)
  --out DIR               where latest.md and latest.json go (default bench/results)
${SERVICE_HELP}`;

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2), FLAGS);
  if (flags.help) return void process.stdout.write(`${HELP}\n`);
  const quick = flags.quick === true;
  const sizes = (typeof flags.sizes === 'string' ? flags.sizes : '10000')
    .split(',')
    .map(Number)
    .sort((a, b) => a - b);
  const queries = intFlag(flags, 'queries', quick ? 60 : 150);
  const throughputCount = intFlag(flags, 'throughput-count', quick ? 600 : 2000);
  const storeSeconds = intFlag(flags, 'store-seconds', quick ? 5 : 10);
  const ingestOnly = flags['ingest-only'] === true;
  const teamSize = ingestOnly ? 0 : intFlag(flags, 'team-size', quick ? 25_000 : 100_000);
  const ingestSeconds = intFlag(flags, 'ingest-seconds', quick ? 3 : 5);
  const services = serviceOptions(flags);
  const started = Date.now();
  const loadBefore = loadavg()[0];

  const db = await createBenchDatabase(services.adminUrl, 'bench');
  const queuePrefix = `bench-${process.pid}`;
  const stacks: ServiceStack[] = [];
  const cleanup = async () => {
    for (const stack of stacks.splice(0)) await stack.stop().catch(() => undefined);
    if (!services.keepDatabase) await db.drop().catch(() => undefined);
    await removeQueueKeys(services.redisUrl, queuePrefix).catch(() => undefined);
  };
  process.once('SIGINT', () => void cleanup().finally(() => process.exit(130)));
  try {
    log(`database ${db.name}; starting API and worker (queue prefix ${queuePrefix})`);
    const stack = await startServiceStack({ services, databaseUrl: db.url, queuePrefix, withWorker: true });
    stacks.push(stack);
    const pg = await connectRaw(db.url, 'bench');
    // A failed phase drops the database in cleanup: the terminated connection is expected then.
    pg.on('error', (error) => log(`bench connection: ${error.message}`));
    const wiring = resolveRecallWiring(stack.api.app, stack.config);
    const active = await ensureActiveModel(pg, wiring.embedders);
    const ctx: BenchContext = {
      services,
      db,
      queuePrefix,
      pg,
      principals: await createBenchTenant(pg, { slug: 'bench', users: USERS }),
      rawModel: await loadModelById({
        modelId: active.id,
        modelsDir: services.modelsDir,
        allowRemote: false,
        dtype: stack.config.embeddings.quantized ? 'q8' : 'fp32',
      }),
      active,
      floorTexts: new FloorTextIndexes(wiring.appRole, wiring.bm25, wiring.vectorLegWired ? active : null),
      usedQueries: new Set(),
      log,
    };
    const notes = [...wiring.notes];
    if (!wiring.vectorLegWired)
      notes.push('VECTOR_RECALL is not wired: recall ran the text leg only, and the floor too.');
    const stopInProcess = async () => {
      if (!stacks.includes(stack)) return;
      await stack.stop();
      stacks.splice(stacks.indexOf(stack), 1);
    };
    const httpTeamMemories = intFlag(flags, 'http-team-size', 10_000);
    if (flags.http === true) {
      await runHttpBench(ctx, wiring, {
        quick,
        seconds: intFlag(flags, 'http-seconds', quick ? 1 : 2),
        teamMemories: httpTeamMemories,
        profileDir: typeof flags.profile === 'string' ? flags.profile : undefined,
        outDir: stringFlag(flags, 'out'),
        stopInProcess,
        started,
        loadBefore,
        notes,
      });
      await pg.end();
      return;
    }

    const recall: RecallRow[] = [];
    const loads: LoadRow[] = [];
    const corpus = generateMemories({ count: sizes[sizes.length - 1], users: USERS, seed: 20251121 });
    let loaded = 0;
    const embedder = await wiring.embedders.get(active.id);
    for (const size of ingestOnly ? [] : sizes) {
      log(`loading memories ${loaded} → ${size}`);
      const { result, rebuildMs } = await withVectorIndexesRebuilt(
        pg,
        () =>
          bulkLoadMemories(pg, {
            memories: take(corpus, size - loaded),
            principals: ctx.principals,
            embedder,
            model: active,
          }),
        services,
      );
      loaded = size;
      loads.push({
        memories: size,
        embedMs: result.embedMs,
        insertMs: result.insertMs,
        indexBuildMs: rebuildMs,
      });
      const warmup = Math.min(30, Math.ceil(queries / 5));
      recall.push(await runRecallPhase(ctx, { memories: size, config: 'default', wiring, queries, warmup }));
      // A second API whose vector leg always takes the HNSW path: its recall@10 is the number at stake.
      const forced = await startServiceStack({
        services,
        databaseUrl: db.url,
        queuePrefix,
        withWorker: false,
        env: { VECTOR_EXACT_SCAN_MAX_ROWS: '0' },
      });
      stacks.push(forced);
      const forcedWiring = resolveRecallWiring(forced.api.app, forced.config);
      recall.push(
        // Half the queries: its latency is the default plan's above, its number is recall@10.
        await runRecallPhase(ctx, {
          memories: size,
          config: 'hnsw',
          wiring: forcedWiring,
          queries: Math.ceil(queries / 2),
          warmup,
        }),
      );
      await forced.stop();
      stacks.splice(stacks.indexOf(forced), 1);
    }

    const indexing = ingestOnly
      ? { throughput: null, store: null }
      : await runIndexingPhases(ctx, stack, { throughputCount, storeSeconds, notes });
    // The ingest run brings its own worker process; this one would only compete with it.
    if (ingestSeconds > 0) await stack.stopWorker();
    const ingest =
      ingestSeconds > 0
        ? await runEventIngestPhase(ctx, {
            seconds: ingestSeconds,
            profileDir: typeof flags.profile === 'string' ? flags.profile : undefined,
          })
        : null;
    // Last, so the many-small-users numbers above are measured on the same data as before.
    const teamRun =
      teamSize > 0
        ? await runTeamRecallPhase(ctx, {
            memories: teamSize,
            wiring,
            apiUrl: stack.api.url,
            queries: Math.min(queries, TEAM_QUERIES),
            warmup: Math.min(10, Math.ceil(queries / 5)),
            // Each compared with an exact scan of the whole team: costly at team size.
            qualityQueries: Math.min(queries, quick ? 20 : 50),
            // The fallback ranks every match of the team in PL/pgSQL (~0.3-0.5 s each at 100k).
            sqlTextQueries: Math.min(queries, quick ? 10 : 20),
            endpointSeconds: intFlag(flags, 'team-endpoint-seconds', quick ? 1 : 3),
            // The built processes bring their own worker; one worker per queue (the HTTP run's
            // processes, later, also run without the in-process one).
            beforeEndpoints: () => stack.stopWorker(),
          })
        : null;
    // Through the front door last: it stops the in-process services.
    const http =
      ingestOnly || flags['without-http'] === true
        ? null
        : await measureHttp(ctx, wiring, {
            quick,
            seconds: intFlag(flags, 'http-seconds', 1),
            teamMemories: httpTeamMemories,
            loadedTeam: teamRun ? { ...teamRun.team, memories: teamRun.row.memories } : undefined,
            profileDir: typeof flags.profile === 'string' ? flags.profile : undefined,
            stopInProcess,
          });
    const results: BenchResults = {
      mode: ingestOnly ? 'ingest' : quick ? 'quick' : 'full',
      startedAt: new Date(started).toISOString(),
      durationS: (Date.now() - started) / 1000,
      machine: await describeMachine(pg),
      loadAverage: { before: loadBefore, after: loadavg()[0] },
      model: active,
      users: USERS,
      overrides: services.env,
      loads,
      recall,
      team: teamRun?.row ?? null,
      ...indexing,
      ingest,
      http,
      notes,
    };
    await pg.end();
    await writeResults(stringFlag(flags, 'out'), results);
  } finally {
    await cleanup();
  }
}

async function runIndexingPhases(
  ctx: BenchContext,
  stack: ServiceStack,
  options: { throughputCount: number; storeSeconds: number; notes: string[] },
): Promise<Pick<BenchResults, 'throughput' | 'store'>> {
  const importer = stack.api.app.get(ImportMemoriesUseCase, { strict: false });
  const create = stack.api.app.get(CreateMemoryUseCase, { strict: false });
  // The index job embeds only once the embedding step is wired into the worker; check with one store.
  const probe = await create.execute(ctx.principals[0], {
    content: `index probe ${process.pid}`,
    category: 'facts',
    tags: [],
    expandedKeywords: '',
    importance: 0.5,
    project: null,
  });
  const probeDeadline = Date.now() + 15_000;
  while ((await embeddedIds(ctx.pg, ctx.active.id, [probe.id])).length === 0 && Date.now() < probeDeadline)
    await sleep(50);
  if ((await embeddedIds(ctx.pg, ctx.active.id, [probe.id])).length === 0) {
    options.notes.push(
      'The worker did not embed a stored memory within 15 s (index step not wired?): indexing not measured.',
    );
    return { throughput: null, store: null };
  }
  // One generator call keeps the two sets apart; anything an owner already stored is dropped.
  const storeCount = options.storeSeconds * 100;
  const wanted = options.throughputCount + storeCount;
  const generated = [
    ...generateMemories({ count: Math.ceil(wanted * 1.2), users: ctx.principals.length, seed: 7 }),
  ];
  const fresh = (await withoutExisting(ctx.pg, ctx.principals, generated)).slice(0, wanted);
  if (fresh.length < wanted) throw new Error(`only ${fresh.length} of ${wanted} generated memories are new`);
  ctx.log(
    `worker throughput: importing ${options.throughputCount} memories with the worker stopped, then draining`,
  );
  const throughput = await measureIndexThroughput({
    stack,
    importer,
    principals: ctx.principals,
    memories: fresh.slice(0, options.throughputCount),
    pg: ctx.pg,
    modelId: ctx.active.id,
    rawModel: ctx.rawModel,
    rawBatchSize: stack.config.embeddings.batchSize,
    insertBatchSize: stack.config.outbox.batchSize,
    timeoutMs: 300_000,
  });
  ctx.log(`store → searchable: ${options.storeSeconds} s at 100 stores/s`);
  const store = await measureStoreToSearchable({
    create,
    principals: ctx.principals,
    memories: fresh.slice(options.throughputCount),
    ratePerSecond: 100,
    pg: ctx.pg,
    modelId: ctx.active.id,
    deadlineMs: 30_000,
  });
  return { throughput, store };
}

async function writeResults(outDir: string, results: BenchResults): Promise<void> {
  const base = results.mode === 'full' ? 'latest' : `latest-${results.mode}`;
  await writeReport(outDir, base, { markdown: renderBenchReport(results), data: results }, log);
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `[bench] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
