import { SingleBar } from 'cli-progress';
import type { CliIo } from './cli-context';

export interface Progress {
  /** Items done so far (not an increment). */
  update(done: number): void;
  stop(): void;
}

export interface ProgressOptions {
  /** The verb before the counts, e.g. `imported`. */
  readonly label: string;
  /** The real total, counted before the work starts. */
  readonly total: number;
  /** What is counted, after the counts (e.g. `lines`); empty for none. */
  readonly unit: string;
  /** --json runs keep stderr plain, like pipes and logs. */
  readonly json: boolean;
}

/**
 * Progress on stderr: a live bar (cli-progress) when stderr is a terminal, else one plain
 * `<label> n/N <unit>` line per update, for logs, pipes, CI and --json runs.
 */
export function startProgress(io: CliIo, options: ProgressOptions): Progress {
  const unit = options.unit === '' ? '' : ` ${options.unit}`;
  if (io.errIsTTY !== true || options.json) {
    let last = -1;
    return {
      update(done) {
        if (done === last) return;
        last = done;
        io.err(`${options.label} ${done}/${options.total}${unit}\n`);
      },
      stop() {},
    };
  }
  const bar = new SingleBar({
    stream: process.stderr,
    format: `${options.label} [{bar}] {percentage}% | {value}/{total}${unit}`,
    hideCursor: true,
  });
  bar.start(options.total, 0);
  return {
    update: (done) => bar.update(done),
    stop: () => bar.stop(),
  };
}
