import { Inject, Injectable } from '@nestjs/common';
import { NEW_ROW, type Tx } from '@app/persistence';
import { AuditWriter, QuotaError, type Principal } from '@app/tenancy';
import { canonicalCategory } from '../domain/categories';
import { assertContentSize, contentHash, sensitiveContentHash } from '../domain/content-rules';
import type { NewMemory, StoredMemory } from '../domain/memory';
import type { NewMemoryLink } from '../domain/memory-link';
import { withResolvedDates } from '../domain/relative-dates';
import { MEMORY_DEFAULTS, MEMORY_LIMITS, type MemoryDefaults, type MemoryLimits } from './memory-limits';
import { MemoryIndexing } from './memory-indexing';
import { MemoryLinkWriter } from './memory-link-writer';
import { MemoryWriteRepository, type MemoryQuota } from './memory-write.repository';
import { MemoryReadRepository } from '../read-model/memory-read.repository';
import { SecretScreen, type Screened } from './secret-screen';
import { SecretStaging, type StagedSecret } from './secret-staging';

/** A new memory after screening, with its secret already in the store when it had one. */
export interface PreparedMemory {
  readonly screened: Screened<NewMemory>;
  readonly staged: StagedSecret | null;
}

/**
 * The rows of new memories: size rule, secret screening, secret storage ahead of the row, duplicate
 * check, relative dates resolved into the keywords, the index job and audit entry in the row's own
 * statement, and the `supersedes` link to the memory it replaces. Used by `MemoryWriter` only.
 */
@Injectable()
export class NewMemoryRows {
  constructor(
    private readonly rows: MemoryWriteRepository,
    private readonly reads: MemoryReadRepository,
    private readonly indexing: MemoryIndexing,
    private readonly audit: AuditWriter,
    private readonly screen: SecretScreen,
    private readonly staging: SecretStaging,
    private readonly links: MemoryLinkWriter,
    @Inject(MEMORY_LIMITS) private readonly limits: MemoryLimits,
    @Inject(MEMORY_DEFAULTS) private readonly defaults: MemoryDefaults,
  ) {}

  /** Validates and redacts, synchronously, before anything is written, logged or enqueued. */
  screenNew(memory: NewMemory): Screened<NewMemory> {
    assertContentSize(memory.content, this.limits.maxContentBytes);
    return this.screen.screenNew(memory);
  }

  /** Writes the secret (if any) to the secret store; call before the row's transaction. */
  async prepare(principal: Principal, screened: Screened<NewMemory>): Promise<PreparedMemory> {
    const staged = screened.secret === null ? null : await this.staging.stage(principal, screened.secret);
    return { screened, staged };
  }

  /**
   * Writes the row and its bookkeeping (index state, outbox, audit) in `tx`, in one statement. With
   * `last` (nothing follows in the transaction) a plain new memory's statement carries the commit
   * too; `null` then says that statement wrote nothing and could not tell why (a duplicate
   * committed while it waited, or a quota) and the transaction is over: store again without `last`.
   */
  async store(
    principal: Principal,
    tx: Tx,
    prepared: PreparedMemory,
    last = false,
  ): Promise<(StoredMemory & { created: boolean }) | null> {
    const { screened, staged } = prepared;
    // Resolved here rather than at screening: an idempotent replay a day later hashes the same body.
    const said = screened.value.createdAt === undefined ? new Date() : new Date(screened.value.createdAt);
    const memory = {
      ...screened.value,
      category: canonicalCategory(screened.value.category),
      expandedKeywords: withResolvedDates(screened.value.expandedKeywords, screened.value.content, said),
    };
    const quota = memoryQuotaOf(principal);
    const followers = [
      ...this.indexing.statements(principal, tx, NEW_ROW, memory),
      this.audit.statement(principal, {
        action: 'memory.create',
        targetType: 'memory',
        targetId: NEW_ROW,
        details:
          screened.kinds.length > 0 ? { redacted: screened.kinds, sensitive: staged !== null } : undefined,
      }),
    ];
    const stored = await this.rows.insertOrGetDuplicate(
      principal,
      tx,
      {
        ...memory,
        visibility: memory.visibility ?? principal.defaultVisibility ?? this.defaults.defaultVisibility,
        expiresAt: memory.expiresAt ?? this.defaultExpiry(memory.category),
        // A sensitive row's redacted text says nothing about its secret: it is never a duplicate.
        contentHash: staged ? sensitiveContentHash(staged.memoryId) : contentHash(memory.content),
        id: staged?.memoryId,
        secret: staged?.secret,
      },
      quota,
      followers,
      { last: last && staged === null && memory.supersedes === undefined },
    );
    if (stored === null) return null;
    if (stored.id === null) throw await this.quotaRefusal(principal, tx, quota, memory.content);
    if (staged) await this.staging.confirm(principal, tx, [staged]);
    if (memory.supersedes !== undefined) {
      // Replacing a memory is changing it: the caller needs write access to it. A duplicate
      // store that answers an existing id links that one (again: a no-op).
      const link = { srcId: stored.id, dstId: memory.supersedes, linkType: 'supersedes' } as const;
      await this.links.link(principal, tx, link, { ifExists: 'keep', target: 'write' });
    }
    return stored;
  }

  /** Remakes a link between two rows of one import (a link that already exists is kept). */
  async linkImported(principal: Principal, tx: Tx, link: NewMemoryLink): Promise<void> {
    await this.links.link(principal, tx, link, { ifExists: 'keep', target: 'write' });
  }

  /** Which quota refused a row of `content` (the statement only said that one did), with the current use. */
  private async quotaRefusal(
    principal: Principal,
    tx: Tx,
    quota: MemoryQuota | undefined,
    content: string,
  ): Promise<QuotaError> {
    const usage = await this.reads.usage(principal, tx);
    const adding = Buffer.byteLength(content, 'utf8');
    const overCount = quota !== undefined && quota.maxMemories > 0 && usage.memories >= quota.maxMemories;
    if (!overCount && quota !== undefined && quota.maxMemoryBytes > 0) {
      return QuotaError.memoryBytes(usage.bytes, adding, quota.maxMemoryBytes);
    }
    return QuotaError.memories(usage.memories, quota?.maxMemories ?? 0);
  }

  /** The category's configured lifetime from now, or undefined (kept until deleted). */
  private defaultExpiry(category: string): Date | undefined {
    const ttl = this.defaults.ttlByCategory?.[category];
    return ttl === undefined ? undefined : new Date(Date.now() + ttl);
  }
}

/** The principal's memory quotas when any applies; undefined (no check at all) when unlimited. */
export function memoryQuotaOf(principal: Principal): MemoryQuota | undefined {
  const quotas = principal.quotas;
  if (!quotas || (quotas.maxMemories === 0 && quotas.maxMemoryBytes === 0)) return undefined;
  return { maxMemories: quotas.maxMemories, maxMemoryBytes: quotas.maxMemoryBytes };
}
