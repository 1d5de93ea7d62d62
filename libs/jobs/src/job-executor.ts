import { Logger } from '@nestjs/common';
import type { JobHandlerRegistry } from './job-handler.registry';
import { isFinalAttempt, type JobContext } from './job-queue.port';
import { errorMessage, isRetryableJobError, UnrecoverableJobError } from './jobs.errors';

export interface JobRunEvent {
  readonly name: string;
  readonly context: JobContext;
  readonly durationMs: number;
  readonly outcome: 'completed' | 'failed';
  readonly error?: unknown;
  /** True when no retry will follow (last attempt, or the error is not retryable). */
  readonly final: boolean;
}

export type JobRunListener = (event: JobRunEvent) => void;

/**
 * Runs one job through its registered handler. Both drivers call this, so logging and metrics
 * look the same in embedded and server mode.
 */
export class JobExecutor {
  private readonly logger = new Logger('Jobs');
  private readonly listeners = new Set<JobRunListener>();

  constructor(private readonly registry: JobHandlerRegistry) {}

  /** Observes every run (metrics); returns an unsubscribe function. */
  subscribe(listener: JobRunListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async run(name: string, data: unknown, context: JobContext): Promise<void> {
    const started = performance.now();
    try {
      const handler = this.registry.get(name);
      if (!handler) throw new UnrecoverableJobError(`no single handler registered for job "${name}"`);
      await handler.handle(data, context);
      this.emit({
        name,
        context,
        durationMs: performance.now() - started,
        outcome: 'completed',
        final: true,
      });
    } catch (error) {
      const final = isFinalAttempt(context) || !isRetryableJobError(error);
      const event = {
        name,
        context,
        durationMs: performance.now() - started,
        outcome: 'failed',
        error,
        final,
      } as const;
      this.emit(event);
      const where = `${name} ${context.jobId} attempt ${context.attempt}/${context.maxAttempts}`;
      const request = context.requestId ? ` request ${context.requestId}` : '';
      if (final) this.logger.error(`job ${where}${request} failed for good: ${errorMessage(error)}`);
      else this.logger.warn(`job ${where}${request} failed, will retry: ${errorMessage(error)}`);
      throw error;
    }
  }

  private emit(event: JobRunEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // An observer (metrics) must never change a job's outcome.
      }
    }
  }
}
