import { Inject, Injectable } from '@nestjs/common';
import { NEW_ROW, type Tx } from '@app/persistence';
import { AuditWriter, QuotaError, type Principal } from '@app/tenancy';
import { canonicalCategory } from '../domain/categories';
import { assertContentSize, contentHash, sensitiveContentHash } from '../domain/content-rules';
import type { NewMemory, StoredMemory, Visibility } from '../domain/memory';
import type { NewMemoryLink } from '../domain/memory-link';
import { MemoryError, MemoryErrorCode } from '../domain/memory.errors';
import { withResolvedDates } from '../domain/relative-dates';
import { MEMORY_DEFAULTS, MEMORY_LIMITS, type MemoryDefaults, type MemoryLimits } from './memory-limits';
import { MemoryIndexing } from './memory-indexing';
import { MemoryLinkWriter } from './memory-link-writer';
import { AnchorWriteRepository, resolveAnchors } from './anchor-write.repository';
import { MemoryWriteRepository, type MemoryQuota } from './memory-write.repository';
import { MemoryReadRepository } from '../read-model/memory-read.repository';
import type { TeamDuplicate } from '../read-model/memory-filter.sql';
import { SecretScreen, type Screened } from './secret-screen';
import { SecretStaging, type StagedSecret } from './secret-staging';
import { TeamDuplicateProbeSlot, type NearDuplicateCandidate } from './team-duplicates.port';

/** A new memory after screening, with its secret already in the store when it had one. */
export interface PreparedMemory {
  readonly screened: Screened<NewMemory>;
  readonly staged: StagedSecret | null;
  /** Teammates' team memories that say the same, most similar first (checked again in the write). */
  readonly near: readonly NearDuplicateCandidate[];
  /** Whether `near` was looked for (false: skipped, as the caller's teammates shared no team memory). */
  readonly probed: boolean;
}

/**
 * Thrown inside the write's transaction (which then rolls back) when a team memory that skipped the
 * meaning probe meets teammates' team memories: the writer looks for near restatements and writes
 * again. Never leaves the writer.
 */
export class TeamProbeNeeded extends Error {
  constructor() {
    super('teammates share team memories: look for near restatements first');
  }
}

/** How many callers' last answer (teammates share team memories or not) a process keeps. */
const TEAMMATES_KEPT = 10_000;

/**
 * The rows of new memories: size rule, secret screening, secret storage ahead of the row, duplicate
 * check, relative dates resolved into the keywords, the index job and audit entry in the row's own
 * statement, and the `supersedes` link to the memory it replaces. Used by `MemoryWriter` only.
 *
 * One fact once per team: a new team memory that repeats a teammate's live team memory (the same
 * text, or the same meaning by the team duplicate probe) writes no row; the store answers that
 * memory and records the caller as endorsing it. A private memory is the writer's own business and
 * is always written; a teammate's private memory is never a candidate (nor named).
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
    private readonly teamDuplicates: TeamDuplicateProbeSlot,
    private readonly anchors: AnchorWriteRepository,
  ) {}

  /** Per caller, whether their last team write found teammates sharing team memories. */
  private readonly teammates = new Map<string, boolean>();

  /** Validates and redacts, synchronously, before anything is written, logged or enqueued. */
  screenNew(memory: NewMemory): Screened<NewMemory> {
    assertContentSize(memory.content, this.limits.maxContentBytes);
    if (memory.anchors) resolveAnchors(memory.anchors, memory.project);
    if (memory.branch !== undefined && memory.project === null) {
      throw new MemoryError(
        MemoryErrorCode.InvalidInput,
        'branch needs project: a branch is a branch of a project',
      );
    }
    return this.screen.screenNew(memory);
  }

  /** Writes the secret (if any) to the secret store; call before the row's transaction. */
  async prepare(principal: Principal, screened: Screened<NewMemory>): Promise<PreparedMemory> {
    const [prepared] = await this.withNear(principal, [await this.stage(principal, screened)], 'always');
    return prepared;
  }

  /** The secret (if any) written to the secret store, item by item; `withNear` completes it. */
  async stage(
    principal: Principal,
    screened: Screened<NewMemory>,
  ): Promise<Omit<PreparedMemory, 'near' | 'probed'>> {
    const staged = screened.secret === null ? null : await this.staging.stage(principal, screened.secret);
    return { screened, staged };
  }

  /**
   * Teammates' team memories that say what each staged item says (only items that may fold into
   * the team), all items asked at once: a batch (an import) is embedded and searched together.
   * `known`: skipped while the caller's last write found no teammate sharing team memories (the
   * write checks again under its lock and asks for the probe with `TeamProbeNeeded`); `always`:
   * looked for whatever this process knows.
   */
  async withNear(
    principal: Principal,
    items: readonly Omit<PreparedMemory, 'near' | 'probed'>[],
    when: 'known' | 'always' = 'known',
  ): Promise<PreparedMemory[]> {
    const probe = this.teamDuplicates.probe;
    const folding = items.filter((item) => this.foldsIntoTeam(principal, item.screened.value, item.staged));
    const teammates = this.teammates.get(teammatesKey(principal));
    // Nothing to look for when the caller's teammates share no team memory (checked in the write).
    const skip = when === 'known' && teammates !== true;
    const found =
      probe && folding.length > 0 && !skip
        ? await probe.candidatesOfEach(
            principal,
            folding.map((item) => item.screened.value.content),
            { teammates: teammates === true },
          )
        : [];
    const nearOf = new Map(folding.map((item, i) => [item, found[i] ?? []]));
    return items.map((item) => ({
      ...item,
      near: nearOf.get(item) ?? [],
      probed: !probe || !skip || !nearOf.has(item),
    }));
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
    // A correction of a teammate's team memory the caller may not change is a proposal for review.
    const proposed =
      memory.supersedes !== undefined && (await this.proposes(principal, tx, memory.supersedes));
    const visibility = proposed ? 'team' : this.visibilityOf(principal, memory);
    const folds = this.foldsIntoTeam(principal, memory, staged);
    // A team memory whose statement carries the commit checks for a teammate's duplicate itself,
    // under the lock on the text, one round trip: a caller no teammate shares team memories with (as
    // far as this process knows: the probe was skipped) asks whether any teammate does; a caller who
    // probed, whether a teammate's memory has the text or is among the candidates. When the guard
    // finds one it writes nothing, and the store runs again in steps, where the separate check
    // answers the duplicate (or asks for the probe) and keeps what this process knows of teammates.
    const guarded = folds && last && !memory.anchors?.length && memory.branch === undefined;
    const alone = guarded && !prepared.probed;
    if (folds && !guarded) {
      const hash = contentHash(memory.content);
      const { duplicate, teammates } = await this.rows.teamDuplicate(
        principal,
        tx,
        hash,
        prepared.near.map((c) => c.id),
      );
      this.noteTeammates(principal, teammates);
      if (duplicate) return this.endorse(principal, tx, duplicate, prepared.near);
      if (teammates && !prepared.probed) throw new TeamProbeNeeded();
    }
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
        visibility,
        expiresAt: memory.expiresAt ?? this.defaultExpiry(memory.category),
        // A sensitive row's redacted text says nothing about its secret: it is never a duplicate.
        contentHash: staged ? sensitiveContentHash(staged.memoryId) : contentHash(memory.content),
        id: staged?.memoryId,
        secret: staged?.secret,
        proposed,
      },
      quota,
      followers,
      {
        last:
          last &&
          staged === null &&
          memory.supersedes === undefined &&
          !memory.anchors?.length &&
          memory.branch === undefined,
        ...(guarded ? { team: alone ? ({ alone } as const) : { near: prepared.near.map((c) => c.id) } } : {}),
      },
    );
    if (stored === null) return null;
    // Written past the guard: no teammate shared team memories.
    if (alone && stored.created) this.noteTeammates(principal, false);
    if (stored.id === null) throw await this.quotaRefusal(principal, tx, quota, memory.content);
    if (staged) await this.staging.confirm(principal, tx, [staged]);
    // A store that answers an existing memory leaves its anchors and scope as they are.
    if (stored.created && memory.branch !== undefined) {
      await this.rows.scopeToBranch(principal, tx, stored.id, memory.branch);
    }
    if (stored.created && memory.anchors?.length) {
      await this.anchors.replace(principal, tx, stored.id, resolveAnchors(memory.anchors, memory.project));
    }
    if (memory.supersedes !== undefined) {
      // Replacing a memory is changing it: the caller needs write access to it, or the correction
      // waits for its owner's review. A duplicate store that answers an existing id links that one
      // (again: a no-op).
      const link = { srcId: stored.id, dstId: memory.supersedes, linkType: 'supersedes' } as const;
      await this.links.link(principal, tx, link, { ifExists: 'keep', target: proposed ? 'read' : 'write' });
      if (proposed && stored.created) {
        await this.audit.record(principal, tx, {
          action: 'memory.propose',
          targetType: 'memory',
          targetId: String(stored.id),
          details: { supersedes: memory.supersedes },
        });
      }
    }
    return stored;
  }

  /**
   * Whether a correction of `target` is a proposal: the target is a teammate's team memory in force
   * that the caller may read but not change. Anything else goes the usual way (the link answers 404
   * for what the caller cannot see, 403 for a shared memory it may not change).
   */
  private async proposes(principal: Principal, tx: Tx, target: number): Promise<boolean> {
    const access = await this.reads.access(principal, tx, target);
    return (
      access !== null &&
      access.readable &&
      !access.writable &&
      access.team &&
      access.reviewState === 'accepted'
    );
  }

  /** What the caller's last write found: whether teammates share team memories (bounded map). */
  private noteTeammates(principal: Principal, teammates: boolean): void {
    if (this.teammates.size >= TEAMMATES_KEPT) this.teammates.clear();
    this.teammates.set(teammatesKey(principal), teammates);
  }

  /** A new team memory of plain text (no secret, replacing nothing) may be a teammate's fact again. */
  private foldsIntoTeam(principal: Principal, memory: NewMemory, staged: StagedSecret | null): boolean {
    return (
      this.visibilityOf(principal, memory) === 'team' && staged === null && memory.supersedes === undefined
    );
  }

  private visibilityOf(principal: Principal, memory: NewMemory): Visibility {
    return memory.visibility ?? principal.defaultVisibility ?? this.defaults.defaultVisibility;
  }

  /** The teammate's memory answers the store; the caller is recorded as endorsing it. */
  private async endorse(
    principal: Principal,
    tx: Tx,
    existing: TeamDuplicate,
    near: readonly NearDuplicateCandidate[],
  ): Promise<StoredMemory & { created: boolean }> {
    const similarity = existing.exact ? 1 : (near.find((c) => c.id === existing.id)?.similarity ?? 1);
    const match = existing.exact ? 'exact' : 'near';
    await this.rows.endorse(principal, tx, existing.id);
    await this.audit.record(principal, tx, {
      action: 'memory.endorse',
      targetType: 'memory',
      targetId: String(existing.id),
      details: { match, similarity: Math.round(similarity * 1000) / 1000 },
    });
    return {
      id: existing.id,
      category: existing.category,
      importance: existing.importance,
      duplicate: { match, similarity, teammates: true },
      created: false,
    };
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

const teammatesKey = (principal: Principal) => `${principal.tenantId}:${principal.userId}`;

/** The principal's memory quotas when any applies; undefined (no check at all) when unlimited. */
export function memoryQuotaOf(principal: Principal): MemoryQuota | undefined {
  const quotas = principal.quotas;
  if (!quotas || (quotas.maxMemories === 0 && quotas.maxMemoryBytes === 0)) return undefined;
  return { maxMemories: quotas.maxMemories, maxMemoryBytes: quotas.maxMemoryBytes };
}
