import { Counter, Histogram, type Registry } from 'prom-client';
import { registerBacklogGauges } from '@app/observability';
import type { JobExecutor } from './job-executor';
import type { OutboxBacklog } from './outbox/outbox.repository';

export interface JobMetricsSources {
  readonly executor: JobExecutor;
  /** Reads the outbox backlog at scrape time; omit in processes without a relay. */
  readonly backlog?: () => Promise<OutboxBacklog>;
}

/** Registers job counters, durations and outbox lag on `registry` (api and worker processes). */
export function registerJobMetrics(registry: Registry, sources: JobMetricsSources): () => void {
  const completed = new Counter({
    name: 'memsvc_jobs_completed_total',
    help: 'Jobs that finished successfully, by job name.',
    labelNames: ['job'],
    registers: [registry],
  });
  const failed = new Counter({
    name: 'memsvc_jobs_failed_total',
    help: 'Failed job runs, by job name; final="true" when no retry follows.',
    labelNames: ['job', 'final'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'memsvc_job_duration_seconds',
    help: 'Time spent in job handlers.',
    labelNames: ['job', 'outcome'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const unsubscribe = sources.executor.subscribe((event) => {
    duration.observe({ job: event.name, outcome: event.outcome }, event.durationMs / 1000);
    if (event.outcome === 'completed') completed.inc({ job: event.name });
    else failed.inc({ job: event.name, final: String(event.final) });
  });

  if (sources.backlog) {
    registerBacklogGauges(
      registry,
      {
        pending: { name: 'memsvc_outbox_pending', help: 'Outbox rows not yet handed to the queue.' },
        oldestAge: {
          name: 'memsvc_outbox_lag_seconds',
          help: 'Age of the oldest outbox row not yet handed to the queue (0 when none).',
        },
      },
      sources.backlog,
    );
  }
  return unsubscribe;
}
