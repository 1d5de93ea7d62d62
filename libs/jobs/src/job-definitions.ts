import { z } from 'zod';
import { PLANNED_TABLES } from '@app/persistence';

const uuid = z.string().uuid();

/** Most memories one `memory.index-batch` job carries (the relay coalesces up to this many). */
export const MEMORY_INDEX_BATCH_MAX = 256;

const indexRequest = z.object({
  tenantId: uuid,
  userId: uuid,
  /** bigint id as a decimal string, so JSON never rounds it. */
  memoryId: z.string().regex(/^\d+$/),
  contentHash: z.string().regex(/^[0-9a-f]{64}$/),
});

/** Every job the worker runs: name → payload schema. Each name has exactly one handler. */
export const JOB_DEFINITIONS = {
  /** What a memory write records in the outbox; the relay queues it inside a `memory.index-batch`. */
  'memory.index': indexRequest.extend({ requestId: z.string().max(200).optional() }),
  /**
   * The `memory.index` rows of one relay pass (any tenants): one run reads them in one query and
   * embeds them in one model call. Runs as system; each memory is matched with its tenant and owner.
   */
  'memory.index-batch': z.object({
    tenantId: uuid.optional(),
    memories: z.array(indexRequest).min(1).max(MEMORY_INDEX_BATCH_MAX),
  }),
  /** Embed every live memory (all tenants) with `model`, then make it the read model. */
  'embeddings.reindex': z.object({
    /** The tenant whose admin started it (the outbox row's tenant; the job itself runs as system). */
    tenantId: uuid,
    /** The `jobs` row that records progress and the resume point. */
    jobId: uuid,
    model: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._/-]{0,127}$/),
    requestId: z.string().max(200).optional(),
  }),
  /**
   * Re-enqueue memories whose index state stayed pending too long (their job was lost), on a
   * schedule; with `queueLost`, at once after a worker saw Redis lose its data (no age threshold).
   */
  'embeddings.reconcile': z.object({
    tenantId: uuid.optional(),
    slot: z.string().max(64),
    queueLost: z.boolean().optional(),
  }),
  /** Build and drop per-tenant HNSW indexes (all tenants), on a schedule. */
  'embeddings.tenant-indexes': z.object({
    tenantId: uuid.optional(),
    slot: z.string().max(64),
  }),
  /**
   * Refresh planner statistics: on a schedule (the slot; tables changed enough since their last
   * ANALYZE), or right after a bulk write (`tables`), so plans do not wait for autovacuum.
   */
  'maintenance.analyze': z.object({
    tenantId: uuid.optional(),
    slot: z.string().max(64).optional(),
    tables: z.array(z.enum(PLANNED_TABLES)).max(PLANNED_TABLES.length).optional(),
  }),
  /** Delete audit rows older than AUDIT_RETENTION_DAYS (all tenants), on a schedule. */
  'audit.purge': z.object({
    tenantId: uuid.optional(),
    slot: z.string().max(64),
  }),
  /** Soft-delete memories past their `expires_at` (all tenants), on a schedule. */
  'memories.expire': z.object({
    tenantId: uuid.optional(),
    slot: z.string().max(64),
  }),
  /** Fold the term-statistics deltas of memory writes into the per-tenant totals (all tenants), on a schedule. */
  'memories.fold-text-stats': z.object({
    tenantId: uuid.optional(),
    slot: z.string().max(64),
  }),
  /** Fold the usage deltas of memory writes into the per-tenant totals quotas read (all tenants), on a schedule. */
  'memories.fold-usage': z.object({
    tenantId: uuid.optional(),
    slot: z.string().max(64),
  }),
  /** Delete outbox rows dispatched a day ago or more (all tenants), enqueued on a schedule by the worker. */
  'outbox.purge': z.object({
    tenantId: uuid.optional(),
    slot: z.string().max(64),
  }),
  /** Retention of deletion history (all tenants), enqueued on a schedule by the worker. */
  'sync.purge-tombstones': z.object({
    /** Jobs carry their tenant; this one runs for all of them, so it is always absent. */
    tenantId: uuid.optional(),
    /** The schedule slot (ISO time) this run belongs to; part of the deterministic job id. */
    slot: z.string().max(64),
  }),
  /** Move secrets found in a tenant's stored memories into the secret store (admin job). */
  'secrets.migrate': z.object({
    tenantId: uuid,
    /** The `jobs` row that records progress and the resume point. */
    jobId: uuid,
    dryRun: z.boolean(),
    requestId: z.string().max(200).optional(),
  }),
  /** Delete Vault secrets no row points at (all tenants), enqueued on a schedule by the worker. */
  'secrets.cleanup': z.object({
    tenantId: uuid.optional(),
    slot: z.string().max(64),
  }),
  /** Process a session's newly captured events (one queued job per session at a time), as the session's user. */
  'sessions.process': z.object({
    tenantId: uuid,
    userId: uuid,
    sessionId: uuid,
    requestId: z.string().max(200).optional(),
  }),
  /**
   * Turn an ended session's unextracted events into memories, as the session's user. Enqueued when
   * a session is ended by a key that may write memories; `keyId` and `defaultVisibility` are that
   * key's (audit rows name it; captured memories get its default visibility).
   */
  'sessions.extract': z.object({
    tenantId: uuid,
    userId: uuid,
    sessionId: uuid,
    keyId: uuid,
    defaultVisibility: z.enum(['team', 'private']).optional(),
    requestId: z.string().max(200).optional(),
  }),
  /** Apply a reported code change to the tenant's anchors (stale, orphaned, moved), as the system. */
  'code-events.apply': z.object({
    tenantId: uuid,
    eventId: z.coerce.number().int().positive(),
    requestId: z.string().max(200).optional(),
  }),
  /** Delete applied code events past their retention (all tenants), on a schedule. */
  'code-events.purge': z.object({
    tenantId: uuid.optional(),
    slot: z.string().max(64),
  }),
  /** Process the events of an imported transcript, with progress in the `jobs` row `jobId`. */
  'sessions.import': z.object({
    tenantId: uuid,
    userId: uuid,
    sessionId: uuid,
    jobId: uuid,
    requestId: z.string().max(200).optional(),
  }),
  /**
   * Send one webhook delivery (one event to one endpoint), signed, as the system. Recorded by the
   * write that caused the event (a trigger on its audit row), or by a manual redeliver.
   */
  'webhooks.deliver': z.object({
    tenantId: uuid,
    deliveryId: uuid,
    /** A redeliver an admin asked for: sent even if delivered before; its attempts are logged as manual. */
    manual: z.boolean().optional(),
    requestId: z.string().max(200).optional(),
  }),
  /** Delete finished webhook deliveries past WEBHOOK_DELIVERY_RETENTION_DAYS (all tenants), on a schedule. */
  'webhooks.purge': z.object({
    tenantId: uuid.optional(),
    slot: z.string().max(64),
  }),
} as const;

export type JobName = keyof typeof JOB_DEFINITIONS;
export type JobPayload<N extends JobName> = z.output<(typeof JOB_DEFINITIONS)[N]>;
export const JOB_NAMES = Object.keys(JOB_DEFINITIONS) as JobName[];
