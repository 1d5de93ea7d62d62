import type { Command } from 'commander';
import { GetAdminJobUseCase, toAdminJobResponse, type AdminJob } from '@app/jobs';
import { StartSecretMigrationUseCase } from '@app/memories';
import type { CliContext } from '../cli-context';
import { json } from '../cli-output';
import { followJob } from '../job-progress';

interface Globals {
  json?: boolean;
  tenant?: string;
}

const counter = (job: AdminJob, name: string) => job.progress.counters?.[name] ?? 0;

/**
 * `secrets migrate [--apply]`: starts the same job as POST /api/admin/secrets/migrate, straight
 * through the database and the outbox (a worker must be running), then follows it with a
 * progress bar. A dry run unless `--apply`.
 */
export function registerSecretsCommands(program: Command, context: CliContext): void {
  const secrets = program.command('secrets').description('secret memories');

  secrets
    .command('migrate')
    .description("move secrets found in a tenant's stored memories into the secret store")
    .option('--apply', 'move them (without it: a dry run that only counts what would move)')
    .option('--no-wait', 'print the job id and return instead of following the progress')
    .option('--tenant <slug>', 'tenant to migrate (default: DEFAULT_TENANT)')
    .action(async (options: { apply?: boolean; wait: boolean }, command: Command) => {
      const globals = command.optsWithGlobals<Globals>();
      const dryRun = options.apply !== true;
      const actor = await context.actor(globals.tenant);
      const job = await (await context.get(StartSecretMigrationUseCase)).execute(actor, { dryRun });
      if (!options.wait) {
        context.io.out(
          globals.json
            ? json({ job_id: job.id })
            : `Started secret migration job ${job.id}. Follow it with GET /api/admin/jobs/${job.id}.\n`,
        );
        return;
      }
      if (!globals.json) {
        context.io.out(
          `Secret migration job ${job.id} (${dryRun ? 'dry run' : 'apply'}) queued; a worker runs it (Ctrl-C stops watching, not the job).\n`,
        );
      }
      const done = await followJob(context, await context.get(GetAdminJobUseCase), actor, job, {
        label: dryRun ? 'secret scan' : 'secret migration',
        unit: 'memories',
        showBar: !globals.json,
        detail: (j) => `found ${counter(j, 'found')}, migrated ${counter(j, 'migrated')}`,
      });
      if (globals.json) context.io.out(json(toAdminJobResponse(done)));
      if (done.status === 'failed')
        throw new Error(`secret migration job ${done.id} failed: ${done.error ?? 'unknown error'}`);
      if (!globals.json) {
        context.io.out(
          dryRun
            ? `Dry run: ${counter(done, 'found')} of ${counter(done, 'scanned')} memories hold secrets. Run with --apply to move them.\n`
            : `Moved the secrets of ${counter(done, 'migrated')} memories (${counter(done, 'scanned')} scanned).\n`,
        );
      }
    });
}
