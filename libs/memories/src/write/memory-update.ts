import { Inject, Injectable } from '@nestjs/common';
import { isRowSecurityRefusal, runTogether, TransactionRunner } from '@app/persistence';
import { AuditWriter, QuotaError, type Principal } from '@app/tenancy';
import { canonicalCategory } from '../domain/categories';
import { contentHash, assertContentSize, sensitiveContentHash } from '../domain/content-rules';
import type { MemoryPatch } from '../domain/memory';
import { MemoryError, MemoryErrorCode } from '../domain/memory.errors';
import { withResolvedDates } from '../domain/relative-dates';
import { MemoryReadRepository, type RowSecret } from '../read-model/memory-read.repository';
import { ownerScopeFor } from '../read-model/ownership';
import { MEMORY_LIMITS, type MemoryLimits } from './memory-limits';
import { MemoryIndexing } from './memory-indexing';
import { MemoryVersionWriteRepository } from './memory-version-write.repository';
import { AnchorWriteRepository, resolveAnchors } from './anchor-write.repository';
import { MemoryWriteRepository } from './memory-write.repository';
import { SecretScreen } from './secret-screen';
import { SecretStaging, type StagedSecret } from './secret-staging';
import { WRITE_TRANSACTION } from './write-transaction';

/** What an update restores, when it puts back an earlier version: its audit entry names it. */
export interface UpdateOptions {
  readonly restoresVersion?: number;
  /** The change confirms the memory against changed code (its anchors): audited as a verify. */
  readonly verifies?: boolean;
}

/**
 * A change to one memory: who may change what (visibility is the owner's or an admin's decision,
 * content every writer's), secret screening and staging under the owner's path, the duplicate
 * rule, the bytes quota, the previous state kept as a version, and the index state, outbox and
 * audit entry in one round trip. Used by `MemoryWriter`, and by the versions wing's restore (the
 * same change, audited as a restore).
 */
@Injectable()
export class MemoryUpdate {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly reads: MemoryReadRepository,
    private readonly rows: MemoryWriteRepository,
    private readonly indexing: MemoryIndexing,
    private readonly versions: MemoryVersionWriteRepository,
    private readonly audit: AuditWriter,
    private readonly screen: SecretScreen,
    private readonly staging: SecretStaging,
    @Inject(MEMORY_LIMITS) private readonly limits: MemoryLimits,
    private readonly anchors: AnchorWriteRepository,
  ) {}

  async apply(
    principal: Principal,
    id: number,
    patch: MemoryPatch,
    options: UpdateOptions = {},
  ): Promise<{ updated: number }> {
    const fields = Object.keys(patch).filter((k) => patch[k as keyof MemoryPatch] !== undefined);
    if (fields.length === 0) throw new MemoryError(MemoryErrorCode.NoFieldsToUpdate, 'No fields to update');
    if (patch.content !== undefined) assertContentSize(patch.content, this.limits.maxContentBytes);
    const screened = this.screen.screenPatch(patch);
    const changes =
      screened.value.category === undefined
        ? screened.value
        : { ...screened.value, category: canonicalCategory(screened.value.category) };
    let staged: StagedSecret | null = null;
    if (screened.secret !== null) {
      // A secret is written under its owner's path: only the owner or an admin puts one into a
      // live memory (an admin's goes under the owner's path too, where the owner's reveal reads it).
      const owner = await this.tx.inTenant(principal, async (tx) => {
        const scope = await ownerScopeFor(this.reads, principal, tx, id, 'manage');
        if (!(await this.reads.findSecret(scope, tx, id))) throw MemoryError.notFound(id);
        return scope;
      });
      staged = await this.staging.stage(principal, screened.secret, { id, owner });
    }
    return this.staging.withStaged(principal, staged ? [staged] : [], () =>
      this.tx.inTenant(
        principal,
        async (tx) => {
          // Visibility is the owner's (or an admin's) decision; content is every writer's.
          const change = changes.visibility !== undefined ? 'manage' : 'edit';
          const owner = await ownerScopeFor(this.reads, principal, tx, id, change);
          const current = await this.rows.lockOwned(owner, tx, id);
          if (!current || current.deleted) throw MemoryError.notFound(id);
          const existing = await this.reads.findLive(owner, tx, id);
          if (!existing) throw MemoryError.notFound(id);
          // New anchors replace the old ones; a repo-less one takes the memory's project.
          if (changes.anchors !== undefined) {
            await this.anchors.replace(owner, tx, id, resolveAnchors(changes.anchors, existing.project));
          }
          const content = changes.content ?? existing.content;
          // Relative dates still mean the days around when the memory was said, not this edit.
          const expandedKeywords =
            changes.content !== undefined || changes.expandedKeywords !== undefined
              ? withResolvedDates(
                  changes.expandedKeywords ?? existing.expandedKeywords,
                  content,
                  new Date(existing.createdAt),
                )
              : undefined;
          const next = {
            content,
            tags: changes.tags ?? existing.tags,
            expandedKeywords: expandedKeywords ?? existing.expandedKeywords,
          };
          let hash: Buffer | undefined;
          let secret: RowSecret | null | undefined;
          if (staged) {
            hash = sensitiveContentHash(id);
            secret = staged.secret;
            await this.staging.confirm(principal, tx, [staged]);
          } else if (changes.content !== undefined) {
            hash = contentHash(changes.content);
            // New content without a secret: the row lets go of any secret it had.
            if (existing.isSensitive) secret = null;
            // Row-level security shows only the duplicates the caller may read: those answer 409
            // naming them. One hidden from the caller must not change the answer (it would tell
            // them the owner has this text): the UPDATE then keeps the row out of the uniqueness
            // rule instead (MemoryRepository.update, migration 1763700000035).
            const duplicate = await this.rows.hasLiveDuplicate(owner, tx, id, hash);
            if (duplicate !== null) {
              throw new MemoryError(
                MemoryErrorCode.DuplicateContent,
                `Memory ${duplicate} already has this content`,
              );
            }
          }
          // The state this change replaces stays readable as a version, with redacted text only: a
          // row stored before secret screening may still hold a secret in clear.
          const legacySecret = existing.isSensitive ? null : this.screen.redact(existing.content);
          const version = await this.versions.recordChange(
            { ...owner, changedBy: principal.userId },
            tx,
            id,
            changes,
            legacySecret?.text,
            changes.anchors !== undefined ? ['anchors'] : [],
          );
          const bytesQuota = this.bytesQuota(principal, existing.content, changes.content);
          const updated = await this.rows
            .update(owner, tx, id, { ...changes, expandedKeywords, contentHash: hash, secret }, bytesQuota)
            .catch((error: unknown) => {
              // Row-level security lets nobody write a row they could not read afterwards: an editor
              // through a tag rule who drops the rule's tag would lose the memory, so that is the owner's.
              if (!isRowSecurityRefusal(error)) throw error;
              throw new MemoryError(
                MemoryErrorCode.Forbidden,
                `Memory ${id} belongs to a teammate and is shared with you through one of its tags: only its owner or an admin may change its tags so that it is no longer shared with you`,
              );
            });
          // The row is locked and live: only the quota can have refused it.
          if (!updated && bytesQuota) {
            const usage = await this.reads.usage(principal, tx);
            throw QuotaError.memoryBytes(usage.bytes, bytesQuota.growth, bytesQuota.maxMemoryBytes);
          }
          const reindex =
            changes.content !== undefined ||
            changes.tags !== undefined ||
            changes.expandedKeywords !== undefined;
          // Index state, outbox and audit in one round trip.
          await runTogether(tx, [
            ...(reindex
              ? this.indexing.statements({ ...owner, requestId: principal.requestId }, tx, id, next)
              : []),
            this.audit.statement(principal, {
              action:
                options.restoresVersion !== undefined
                  ? 'memory.version.restore'
                  : options.verifies
                    ? 'memory.verify'
                    : 'memory.update',
              targetType: 'memory',
              targetId: id,
              details: {
                fields,
                ...(version !== null ? { version } : {}),
                ...(options.restoresVersion !== undefined ? { restored: options.restoresVersion } : {}),
                ...(screened.kinds.length > 0
                  ? { redacted: screened.kinds, sensitive: staged !== null }
                  : {}),
              },
            }),
          ]);
          return { updated: id };
        },
        WRITE_TRANSACTION,
      ),
    );
  }

  /** The bytes quota a content change that grows the memory is checked against; none otherwise. */
  private bytesQuota(principal: Principal, stored: string, next: string | undefined) {
    const maxMemoryBytes = principal.quotas?.maxMemoryBytes ?? 0;
    if (next === undefined || maxMemoryBytes === 0) return undefined;
    const growth = Buffer.byteLength(next, 'utf8') - Buffer.byteLength(stored, 'utf8');
    return growth > 0 ? { maxMemoryBytes, growth } : undefined;
  }
}
