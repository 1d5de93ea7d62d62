import { Inject, Injectable, type OnModuleInit, Optional } from '@nestjs/common';
import type { Registry } from 'prom-client';
import { METRICS_REGISTRY, registerBacklogGauges } from '@app/observability';
import { TransactionRunner } from '@app/persistence';
import { MemoryIndexStateRepository } from './memory-index-state.repository';

/**
 * `memsvc_index_pending` and `memsvc_index_pending_oldest_seconds`, read at scrape time: a growing
 * oldest age means jobs are lost or workers are down (the reconciliation sweep re-enqueues after
 * INDEX_RECONCILE_AFTER_MS). Only live memories count: a deleted or expired one waits for nothing,
 * so the backlog can reach 0 and an alert on its age means what it says. Registered only where the
 * app has a metrics registry.
 */
@Injectable()
export class IndexBacklogMetrics implements OnModuleInit {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(MemoryIndexStateRepository) private readonly states: MemoryIndexStateRepository,
    @Optional() @Inject(METRICS_REGISTRY) private readonly registry?: Registry,
  ) {}

  onModuleInit(): void {
    const registry = this.registry;
    if (!registry || registry.getSingleMetric('memsvc_index_pending')) return;
    registerBacklogGauges(
      registry,
      {
        pending: {
          name: 'memsvc_index_pending',
          help: 'Live memories whose index (embedding) is not up to date yet.',
        },
        oldestAge: {
          name: 'memsvc_index_pending_oldest_seconds',
          help: 'How long the oldest pending live memory has waited for its index job (0 when none).',
        },
      },
      () => this.tx.asSystem((tx) => this.states.pendingBacklog(tx)),
    );
  }
}
