import { Inject, Injectable } from '@nestjs/common';
import { OutboxWriter } from '@app/jobs';
import type { Tx } from '@app/persistence';
import { AuditWriter, type Principal } from '@app/tenancy';
import type { ImportedMemory, StoredMemory } from '../domain/memory';
import { MemoryError, MemoryErrorCode } from '../domain/memory.errors';
import type { PortableMemoryVersion } from '../domain/memory-version';
import { MEMORY_LIMITS, type MemoryLimits } from '../write/memory-limits';
import { MemoryVersionWriteRepository } from '../write/memory-version-write.repository';
import { MemoryWriter } from '../write/memory-writer';
import { REDACTED_CATEGORY, SecretScreen } from '../write/secret-screen';

export interface ImportMemoriesOptions {
  /** Client-chosen key: the same key with the same batch returns the first answer, importing nothing. */
  readonly idempotencyKey?: string;
}

/** Imports of at least this many memories refresh the planner statistics right after they commit. */
export const ANALYZE_AFTER_IMPORTED = 100;

/**
 * Stores a batch in one transaction: every item or none. Answers in input order. Items from an
 * export get their links to other items of the same batch made again between the new rows, and
 * their earlier versions back (screened again: a version keeps redacted text only; a memory found
 * as an existing duplicate keeps its own versions when it has any).
 */
@Injectable()
export class ImportMemoriesUseCase {
  constructor(
    private readonly writer: MemoryWriter,
    private readonly audit: AuditWriter,
    private readonly outbox: OutboxWriter,
    @Inject(MEMORY_LIMITS) private readonly limits: MemoryLimits,
    private readonly screen: SecretScreen,
    private readonly versions: MemoryVersionWriteRepository,
  ) {}

  async execute(
    principal: Principal,
    items: readonly ImportedMemory[],
    options: ImportMemoriesOptions = {},
  ): Promise<StoredMemory[]> {
    if (items.length > this.limits.maxImportBatch) {
      throw new MemoryError(
        MemoryErrorCode.BatchTooLarge,
        `import accepts at most ${this.limits.maxImportBatch} memories per request; got ${items.length}`,
      );
    }
    const versions = items.map((item) => (item.versions ?? []).map((v) => this.screenVersion(v)));
    return this.writer.create(principal, items, {
      idempotencyKey: options.idempotencyKey,
      asImport: true,
      within: async (tx, stored) => {
        for (const [index, memory] of stored.entries()) {
          await this.versions.importVersions(principal, tx, memory.id, versions[index] ?? []);
        }
        await this.recordImport(principal, tx, stored);
      },
    });
  }

  /** A version's text fields with every secret redacted; one whose content held a secret is sensitive. */
  private screenVersion(version: PortableMemoryVersion): PortableMemoryVersion {
    const screened = this.screen.screenPatch({
      content: version.content,
      category: version.category,
      tags: version.tags,
    });
    const project = version.project === null ? null : this.screen.redact(version.project);
    return {
      ...version,
      content: screened.value.content ?? version.content,
      category: screened.value.category ?? REDACTED_CATEGORY,
      tags: screened.value.tags ?? version.tags,
      project: project ? project.text : version.project,
      isSensitive: version.isSensitive || screened.secret !== null,
    };
  }

  private async recordImport(principal: Principal, tx: Tx, stored: readonly StoredMemory[]): Promise<void> {
    if (stored.length >= ANALYZE_AFTER_IMPORTED) {
      // A bulk write can leave the planner's picture of this user far behind (estimated at 1 row);
      // refresh it now instead of waiting for autovacuum.
      await this.outbox.enqueue(principal, tx, {
        name: 'maintenance.analyze',
        payload: { tenantId: principal.tenantId, tables: ['memories', 'memory_index_state'] },
        requestId: principal.requestId,
      });
    }
    await this.audit.record(principal, tx, {
      action: 'memory.import',
      targetType: 'memory',
      details: { count: stored.length, ids: stored.map((r) => r.id) },
    });
  }
}
