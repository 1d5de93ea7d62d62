import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { Counter, Gauge, type Registry } from 'prom-client';
import { METRICS_REGISTRY } from '@app/observability';
import { REPLICA_READS, type ReplicaReads } from '@app/persistence';

/** The read replicas' router as the persistence module provides it (null: no replicas configured). */
export type ReplicaRouting = { readonly reads: ReplicaReads } | null;

/**
 * Read replicas, where DATABASE_REPLICA_URLS names some:
 * - `memsvc_db_replica_in_rotation{replica}`: 1 while the replica serves reads;
 * - `memsvc_db_replica_lag_seconds{replica}`: how far behind the primary it was at its last check;
 * - `memsvc_db_reads_total{target, reason}`: read-only work by where it ran, and why the primary
 *   answered one a replica could have (`no_replica`, `behind`, `horizon`, `replica_failed`, `schema_behind`,
 *   `positions_unknown`).
 */
@Injectable()
export class ReplicaMetrics implements OnModuleInit {
  constructor(
    @Inject(METRICS_REGISTRY) private readonly registry: Registry,
    @Inject(REPLICA_READS) private readonly routing: ReplicaRouting,
  ) {}

  onModuleInit(): void {
    const reads = this.routing?.reads;
    if (!reads) return;
    new Gauge({
      name: 'memsvc_db_replica_in_rotation',
      help: 'Whether a read replica serves reads (1) or is out of rotation (0: lagging, unreachable).',
      labelNames: ['replica'],
      registers: [this.registry],
      collect() {
        for (const replica of reads.status()) this.set({ replica: replica.name }, replica.inRotation ? 1 : 0);
      },
    });
    new Gauge({
      name: 'memsvc_db_replica_lag_seconds',
      help: 'How far a read replica was behind the primary when last checked.',
      labelNames: ['replica'],
      registers: [this.registry],
      collect() {
        // A replica that cannot be checked has no lag to show (not its last one).
        this.reset();
        for (const replica of reads.status())
          if (replica.lagMs !== null) this.set({ replica: replica.name }, replica.lagMs / 1000);
      },
    });
    const served = new Counter({
      name: 'memsvc_db_reads_total',
      help: 'Read-only work by where it ran; reason: why the primary answered a read a replica could have.',
      labelNames: ['target', 'reason'],
      registers: [this.registry],
    });
    reads.listen({ read: (target, reason) => served.inc({ target, reason: reason ?? 'none' }) });
  }
}
