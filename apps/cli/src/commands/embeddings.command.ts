import { Writable } from 'node:stream';
import { SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { isFinished, toAdminJobResponse, type AdminJob } from '@app/jobs/admin-jobs/admin-job';
import { embedderProviderFactory } from '@app/memories/adapters/transformers-embedder';
import { reindexBodySchema } from '@app/memories/contracts/embeddings-admin.schemas';
import { createReindexUseCases, type ReindexUseCases } from '@app/memories/embeddings.factory';
import { TransactionRunner } from '@app/persistence';
import { parseInput, type SystemActor } from '@app/tenancy';
import type { CliContext } from '../cli-context';
import { json } from '../cli-output';

interface Globals {
  json?: boolean;
  tenant?: string;
}

const POLL_MS = 500;

/**
 * `embeddings reindex --model <id>`: starts the same job as POST /api/admin/embeddings/reindex,
 * straight through the database and the outbox (no API needed; a worker must be running), then
 * follows the `jobs` row with a progress bar until it finishes, unless `--no-wait`.
 */
export function registerEmbeddingsCommands(program: Command, context: CliContext): void {
  const embeddings = program.command('embeddings').description('embedding models');

  embeddings
    .command('reindex')
    .description('embed every memory with a model (all tenants), then make it the read model')
    .requiredOption('--model <id>', 'model folder under MODELS_DIR, e.g. glove-sif-100d')
    .option('--no-wait', 'print the job id and return instead of following the progress')
    .option('--tenant <slug>', 'tenant the job is recorded in (default: DEFAULT_TENANT)')
    .action(async (options: { model: string; wait: boolean }, command: Command) => {
      const globals = command.optsWithGlobals<Globals>();
      const input = parseInput(reindexBodySchema, { model: options.model });
      const actor = await context.actor(globals.tenant);
      const embedders = embedderProviderFactory(context.config);
      try {
        const cases = createReindexUseCases(
          new TransactionRunner(await context.dataSource(), context.config.database.appRole),
          embedders,
        );
        const job = await cases.startReindex.execute(actor, input);
        if (!options.wait) {
          context.io.out(
            globals.json
              ? json({ job_id: job.id })
              : `Started reindex job ${job.id} to "${input.model}". Follow it with GET /api/admin/jobs/${job.id}.\n`,
          );
          return;
        }
        if (!globals.json) {
          context.io.out(
            `Reindex job ${job.id} to "${input.model}" queued; a worker runs it (Ctrl-C stops watching, not the job).\n`,
          );
        }
        const done = await follow(context, cases, actor, job, !globals.json);
        if (globals.json) context.io.out(json(toAdminJobResponse(done)));
        if (done.status === 'failed')
          throw new Error(`reindex job ${done.id} failed: ${done.error ?? 'unknown error'}`);
        if (!globals.json) {
          context.io.out(
            `Reindex finished: ${done.progress.done} of ${done.progress.total ?? done.progress.done} memories; ` +
              `"${input.model}" is the read model.\n`,
          );
        }
      } finally {
        await embedders.onModuleDestroy();
      }
    });
}

/** Polls the job row, drawing the bar on stderr (a live bar on a terminal, periodic lines otherwise). */
async function follow(
  context: CliContext,
  cases: ReindexUseCases,
  actor: SystemActor,
  job: AdminJob,
  showBar: boolean,
): Promise<AdminJob> {
  const tty = process.stderr.isTTY === true;
  const stream = tty
    ? process.stderr
    : new Writable({
        write(chunk: Buffer | string, _encoding, callback) {
          context.io.err(String(chunk));
          callback();
        },
      });
  const bar = new SingleBar({
    stream,
    noTTYOutput: true,
    notTTYSchedule: 1_000,
    format: 'reindex [{bar}] {percentage}% | {value}/{total} memories | {status}',
    hideCursor: tty,
  });
  let current = job;
  if (showBar) bar.start(job.progress.total ?? 0, 0, { status: job.status });
  try {
    while (!isFinished(current)) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      current = await cases.getJob.execute(actor, job.id);
      if (showBar) {
        bar.setTotal(current.progress.total ?? 0);
        bar.update(current.progress.done + current.progress.failed, { status: current.status });
      }
    }
  } finally {
    if (showBar) bar.stop();
  }
  return current;
}
