import { Writable } from 'node:stream';
import { SingleBar } from 'cli-progress';
import { isFinished, type AdminJob } from '@app/jobs';
import { type GetAdminJobUseCase } from '@app/jobs';
import { type SystemActor } from '@app/tenancy';
import type { CliContext } from './cli-context';

const POLL_MS = 500;

export interface FollowOptions {
  /** Bar label, e.g. `reindex`. */
  readonly label: string;
  /** What is counted, e.g. `memories`. */
  readonly unit: string;
  readonly showBar: boolean;
  /** Extra text after the counts (e.g. the migration's found/migrated). */
  readonly detail?: (job: AdminJob) => string;
}

/**
 * Polls an admin job's row, drawing a bar on stderr (live on a terminal, periodic lines otherwise).
 * The bar starts once the worker has counted the items, so its total is the real one from the start.
 */
export async function followJob(
  context: CliContext,
  getJob: GetAdminJobUseCase,
  actor: SystemActor,
  job: AdminJob,
  options: FollowOptions,
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
    format: `${options.label} [{bar}] {percentage}% | {value}/{total} ${options.unit} | {status}{detail}`,
    hideCursor: tty,
  });
  const payload = (j: AdminJob) => ({
    status: j.status,
    detail: options.detail ? ` | ${options.detail(j)}` : '',
  });
  let current = job;
  let started = false;
  const draw = (j: AdminJob) => {
    if (!options.showBar) return;
    if (!started && j.progress.total === null) return;
    if (!started) {
      bar.start(j.progress.total ?? 0, 0, payload(j));
      started = true;
    }
    bar.update(j.progress.done + j.progress.failed, payload(j));
  };
  if (options.showBar && job.progress.total === null)
    context.io.err(`${options.label}: waiting for a worker to count the ${options.unit}…\n`);
  draw(job);
  try {
    while (!isFinished(current)) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      current = await getJob.execute(actor, job.id);
      draw(current);
    }
  } finally {
    if (started) bar.stop();
  }
  return current;
}
