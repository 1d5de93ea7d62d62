import type { Command } from 'commander';
import {
  CancelAdminJobUseCase,
  GetAdminJobUseCase,
  JobQueueInspectionModule,
  ListAdminJobsUseCase,
  listAdminJobsQuerySchema,
  RetryAdminJobUseCase,
  ShowAdminJobUseCase,
  toAdminJobResponse,
  type AdminJobResponse,
} from '@app/jobs';
import { parseInput, type SystemActor } from '@app/tenancy';
import { CliUsageError, type CliContext } from '../cli-context';
import { json, table } from '../cli-output';
import { followJob } from '../job-progress';

interface Globals {
  json?: boolean;
}

/** The admin job use cases (JobsModule's, as /api/admin/jobs has them). */
interface AdminJobUseCases {
  readonly list: ListAdminJobsUseCase;
  readonly show: ShowAdminJobUseCase;
  readonly retry: RetryAdminJobUseCase;
  readonly cancel: CancelAdminJobUseCase;
  /** The `jobs` row alone (progress of a resumable job). */
  readonly tracked: GetAdminJobUseCase;
}

const TENANT_OPTION = ['--tenant <slug>', 'tenant slug (default: DEFAULT_TENANT)'] as const;
const POLL_MS = 500;

/**
 * `jobs list|watch|retry|cancel`: the same use cases as /api/admin/jobs, reading the BullMQ queues
 * in Redis (REDIS_URL) and the `jobs` table.
 */
export function registerJobsCommands(program: Command, context: CliContext): void {
  const jobs = program.command('jobs').description("a tenant's background jobs: list, watch, retry, cancel");

  jobs
    .command('list')
    .description('jobs of the tenant the queue holds, newest first')
    .option('--state <state>', 'waiting, active, delayed, completed or failed')
    .option('--name <name>', 'only jobs of this name, e.g. secrets.migrate')
    .option('--limit <n>', 'jobs to show (default 50)', '50')
    .option('--cursor <cursor>', 'continue where a previous listing stopped')
    .option(...TENANT_OPTION)
    .action(
      async (
        options: { state?: string; name?: string; limit?: string; cursor?: string; tenant?: string },
        command: Command,
      ) => {
        const globals = command.optsWithGlobals<Globals>();
        const { tenant: _tenant, ...query } = options;
        const input = parseInput(listAdminJobsQuerySchema, query);
        await withJobs(context, options.tenant, async (cases, actor) => {
          const page = await cases.list.execute(actor, input);
          const list = page.items.map(toAdminJobResponse);
          if (globals.json) return context.io.out(json({ jobs: list, next_cursor: page.nextCursor }));
          context.io.out(jobsTable(list));
          if (page.nextCursor) context.io.out(`More jobs: --cursor ${page.nextCursor}\n`);
        });
      },
    );

  jobs
    .command('watch <id>')
    .description('follow a job until it finishes: a progress bar for resumable jobs, state lines otherwise')
    .option(...TENANT_OPTION)
    .action(async (id: string, options: { tenant?: string }, command: Command) => {
      const globals = command.optsWithGlobals<Globals>();
      await withJobs(context, options.tenant, async (cases, actor) => {
        const done = await watch(context, cases, actor, id, !globals.json);
        if (globals.json) context.io.out(json(done));
        else
          context.io.out(
            `Job ${done.id} (${done.name}) ${done.status}${done.error ? `: ${done.error}` : ''}\n`,
          );
        if (done.status === 'failed') throw new Error(`job ${done.id} failed`);
      });
    });

  for (const verb of ['retry', 'cancel'] as const) {
    jobs
      .command(`${verb} <id>`)
      .description(
        verb === 'retry' ? 'queue a failed job again, attempts reset' : 'drop a job that has not started',
      )
      .option(...TENANT_OPTION)
      .action(async (id: string, options: { tenant?: string }, command: Command) => {
        const globals = command.optsWithGlobals<Globals>();
        await withJobs(context, options.tenant, async (cases, actor) => {
          const job = toAdminJobResponse(await cases[verb].execute(actor, id));
          context.io.out(
            globals.json
              ? json(job)
              : `${verb === 'retry' ? 'Queued again' : 'Cancelled'}: job ${job.id} (${job.name}).\n`,
          );
        });
      });
  }
}

async function withJobs(
  context: CliContext,
  tenant: string | undefined,
  run: (cases: AdminJobUseCases, actor: SystemActor) => Promise<void>,
): Promise<void> {
  if (!context.config.redis.url) {
    throw new CliUsageError('REDIS_URL is not set: the jobs commands read the job queue in Redis.');
  }
  // The CLI has no job runtime: the use cases read the queue as a server's read its own.
  context.include(JobQueueInspectionModule.forRoot({ client: 'cli' }));
  const cases: AdminJobUseCases = {
    list: await context.get(ListAdminJobsUseCase),
    show: await context.get(ShowAdminJobUseCase),
    retry: await context.get(RetryAdminJobUseCase),
    cancel: await context.get(CancelAdminJobUseCase),
    tracked: await context.get(GetAdminJobUseCase),
  };
  await run(cases, await context.actor(tenant));
}

async function watch(
  context: CliContext,
  cases: AdminJobUseCases,
  actor: SystemActor,
  id: string,
  showBar: boolean,
): Promise<AdminJobResponse> {
  const first = await cases.show.execute(actor, id);
  if (first.tracked) {
    await followJob(context, cases.tracked, actor, first.tracked, {
      label: first.name,
      unit: 'items',
      showBar,
    });
    return toAdminJobResponse(await cases.show.execute(actor, id));
  }
  let current = toAdminJobResponse(first);
  let last = '';
  for (;;) {
    const line = `${current.name} ${current.state ?? current.status} (attempt ${current.attempts ?? 0}/${current.max_attempts ?? 0})`;
    if (showBar && line !== last) context.io.err(`${line}\n`);
    last = line;
    if (current.status === 'succeeded' || current.status === 'failed') return current;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    current = toAdminJobResponse(await cases.show.execute(actor, id));
  }
}

function jobsTable(jobs: readonly AdminJobResponse[]): string {
  if (jobs.length === 0) return 'No jobs.\n';
  return table(
    ['ID', 'NAME', 'STATE', 'ATTEMPTS', 'PROGRESS', 'CREATED', 'ERROR'],
    jobs.map((j) => [
      j.id,
      j.name,
      j.state ?? j.status,
      `${j.attempts ?? 0}/${j.max_attempts ?? 0}`,
      j.progress.total === null ? '' : `${j.progress.done}/${j.progress.total}`,
      j.created_at,
      (j.error ?? '').slice(0, 80),
    ]),
  );
}
