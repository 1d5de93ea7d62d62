import { describe, expect, it } from 'vitest';
import { JobHandlerRegistry, type JobHandler } from './job-handler.registry';
import type { JobName } from './job-definitions';
import { DomainError, type ErrorKind } from '@app/kernel';
import { isRetryableJobError, JobsError, JobsErrorCode, UnrecoverableJobError } from './jobs.errors';

class IndexHandler implements JobHandler {
  async handle(): Promise<void> {}
}
class OtherIndexHandler implements JobHandler {
  async handle(): Promise<void> {}
}

const names = (...n: string[]) => n as JobName[];

describe('JobHandlerRegistry', () => {
  it('accepts exactly one handler per job name and returns it', () => {
    const registry = new JobHandlerRegistry(names('memory.index'));
    const handler = new IndexHandler();
    registry.register('memory.index', handler);
    expect(() => registry.assertComplete()).not.toThrow();
    expect(registry.get('memory.index')).toBe(handler);
  });

  it('fails listing every job without a handler', () => {
    const registry = new JobHandlerRegistry(names('memory.index', 'memory.purge', 'secrets.migrate'));
    registry.register('memory.index', new IndexHandler());
    let error: unknown;
    try {
      registry.assertComplete();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(JobsError);
    expect((error as JobsError).code).toBe(JobsErrorCode.MissingHandler);
    expect((error as Error).message).toContain('no handler for job "memory.purge"');
    expect((error as Error).message).toContain('no handler for job "secrets.migrate"');
    expect((error as Error).message).not.toContain('"memory.index"');
  });

  it('fails naming both classes when a job has two handlers, and serves neither', () => {
    const registry = new JobHandlerRegistry(names('memory.index'));
    registry.register('memory.index', new IndexHandler());
    registry.register('memory.index', new OtherIndexHandler());
    expect(() => registry.assertComplete()).toThrow(
      /2 handlers for job "memory.index": IndexHandler, OtherIndexHandler/,
    );
    expect(registry.get('memory.index')).toBeUndefined();
  });

  it('reports missing and duplicate handlers together, plus handlers for unknown jobs', () => {
    const registry = new JobHandlerRegistry(names('memory.index', 'memory.purge'));
    registry.register('memory.index', new IndexHandler());
    registry.register('memory.index', new IndexHandler());
    registry.register('memory.reticulate' as JobName, new OtherIndexHandler());
    expect(registry.problems()).toEqual([
      '2 handlers for job "memory.index": IndexHandler, IndexHandler',
      'no handler for job "memory.purge"',
      'handler OtherIndexHandler registered for unknown job "memory.reticulate"',
    ]);
  });

  it('expects every job in JOB_DEFINITIONS by default', () => {
    const registry = new JobHandlerRegistry();
    expect(registry.problems()).toContain('no handler for job "memory.index"');
  });
});

describe('which job failures are retried', () => {
  class NotFound extends DomainError {
    constructor(kind: ErrorKind) {
      super(kind, 'thing_not_found', 'gone before the job ran');
    }
  }

  it('does not retry what fails the same way every time', () => {
    expect(isRetryableJobError(new NotFound('not_found'))).toBe(false);
    expect(isRetryableJobError(new NotFound('invalid'))).toBe(false);
    expect(isRetryableJobError(new UnrecoverableJobError('bad payload'))).toBe(false);
  });

  it('retries conflicts, unavailable services and unknown errors', () => {
    expect(isRetryableJobError(new NotFound('conflict'))).toBe(true);
    expect(isRetryableJobError(new NotFound('unavailable'))).toBe(true);
    expect(isRetryableJobError(new Error('connection reset'))).toBe(true);
  });
});
