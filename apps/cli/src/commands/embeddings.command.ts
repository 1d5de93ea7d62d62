import type { Command } from 'commander';
import { EmbeddingModelsModule, reindexBodySchema, StartReindexUseCase } from '@app/embeddings';
import { GetAdminJobUseCase, toAdminJobResponse } from '@app/jobs';
import { parseInput } from '@app/tenancy';
import type { CliContext } from '../cli-context';
import { json } from '../cli-output';
import { followJob } from '../job-progress';

interface Globals {
  json?: boolean;
  tenant?: string;
}

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
      // The embedder (to check the model loads) and the model registry; closed with the context.
      context.include(EmbeddingModelsModule);
      const actor = await context.actor(globals.tenant);
      const job = await (await context.get(StartReindexUseCase)).execute(actor, input);
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
      const done = await followJob(context, await context.get(GetAdminJobUseCase), actor, job, {
        label: 'reindex',
        unit: 'memories',
        showBar: !globals.json,
      });
      if (globals.json) context.io.out(json(toAdminJobResponse(done)));
      if (done.status === 'failed')
        throw new Error(`reindex job ${done.id} failed: ${done.error ?? 'unknown error'}`);
      if (!globals.json) {
        context.io.out(
          `Reindex finished: ${done.progress.done} of ${done.progress.total ?? done.progress.done} memories; ` +
            `"${input.model}" is the read model.\n`,
        );
      }
    });
}
