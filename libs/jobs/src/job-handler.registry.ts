import { JOB_NAMES, type JobName } from './job-definitions';
import type { JobContext } from './job-queue.port';
import { JobsError, JobsErrorCode } from './jobs.errors';

/** A processor: validates `data` with the job's zod schema and calls one use case. */
export interface JobHandler {
  handle(data: unknown, context: JobContext): Promise<void>;
}

interface Registration {
  readonly handler: JobHandler;
  readonly source: string;
}

/**
 * One handler per job name. Processors register themselves while the app initialises; the
 * consumer calls `assertComplete()` before it takes any job, so a missing or doubled handler
 * stops the process at startup instead of failing jobs later.
 */
export class JobHandlerRegistry {
  private readonly registrations = new Map<string, Registration[]>();

  constructor(private readonly expected: readonly JobName[] = JOB_NAMES) {}

  register(name: JobName, handler: JobHandler, source = handler.constructor.name): void {
    const list = this.registrations.get(name) ?? [];
    list.push({ handler, source });
    this.registrations.set(name, list);
  }

  /** Lists every problem at once: missing handlers, duplicates and handlers for unknown names. */
  problems(): string[] {
    const problems: string[] = [];
    for (const name of this.expected) {
      const list = this.registrations.get(name) ?? [];
      if (list.length === 0) problems.push(`no handler for job "${name}"`);
      if (list.length > 1) {
        problems.push(`${list.length} handlers for job "${name}": ${list.map((r) => r.source).join(', ')}`);
      }
    }
    for (const [name, list] of this.registrations) {
      if (!(this.expected as readonly string[]).includes(name)) {
        problems.push(`handler ${list.map((r) => r.source).join(', ')} registered for unknown job "${name}"`);
      }
    }
    return problems;
  }

  assertComplete(): void {
    const problems = this.problems();
    if (problems.length === 0) return;
    const code = problems.some((p) => p.startsWith('no handler'))
      ? JobsErrorCode.MissingHandler
      : JobsErrorCode.DuplicateHandler;
    throw new JobsError(
      code,
      `job handler registry is invalid:\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );
  }

  /** The single handler for a job, or undefined when none (or several) are registered. */
  get(name: string): JobHandler | undefined {
    const list = this.registrations.get(name);
    return list?.length === 1 ? list[0].handler : undefined;
  }

  jobNames(): readonly JobName[] {
    return this.expected;
  }
}
