import type { TenantScope, Tx } from '@app/persistence';
import type { NewAnchor } from '../domain/anchor';
import { MemoryError, MemoryErrorCode } from '../domain/memory.errors';

/** An anchor ready to store: its repository resolved (the memory's project when it named none). */
export interface ResolvedAnchor extends Omit<NewAnchor, 'repo'> {
  readonly repo: string;
}

/**
 * Each anchor's repository: its own, else the memory's project. A memory without a project needs
 * every anchor to name one (422), checked before anything is written.
 */
export function resolveAnchors(
  anchors: readonly NewAnchor[],
  project: string | null,
): readonly ResolvedAnchor[] {
  return anchors.map((anchor, i) => {
    const repo = anchor.repo ?? project;
    if (repo === null || repo === undefined) {
      throw new MemoryError(
        MemoryErrorCode.InvalidInput,
        `anchors[${i}]: repo is required when the memory has no project`,
      );
    }
    return { ...anchor, repo };
  });
}

/**
 * Writes `memory_anchors` rows (migration 1763700000050) in the transaction that writes their
 * memory; the caller has already checked the memory is theirs to change. Row-level security checks
 * again that the memory is the tenant's and visible to the caller.
 */
export class AnchorWriteRepository {
  /** Replaces memory `id`'s anchors with `anchors` (none: removes them); one statement. */
  async replace(scope: TenantScope, tx: Tx, id: number, anchors: readonly ResolvedAnchor[]): Promise<void> {
    await tx.query(
      // The INSERT reads \`gone\`, so the DELETE runs first (an unread one would run after it).
      `WITH gone AS (DELETE FROM memory_anchors WHERE memory_id = $1 AND tenant_id = $2 RETURNING 1)
       INSERT INTO memory_anchors (tenant_id, memory_id, ordinal, repo, path, symbol, line_start, line_end, commit, hash)
       SELECT $2, $1, a.ordinal, a.repo, a.path, a.symbol, a.line_start, a.line_end, a.commit, a.hash
         FROM json_to_recordset($3::json) AS a(ordinal smallint, repo text, path text, symbol text,
                                              line_start integer, line_end integer, commit text, hash text)
        WHERE (SELECT count(*) FROM gone) >= 0`,
      [id, scope.tenantId, JSON.stringify(anchors.map(toRecord))],
    );
  }
}

const toRecord = (anchor: ResolvedAnchor, ordinal: number) => ({
  ordinal,
  repo: anchor.repo,
  path: anchor.path,
  symbol: anchor.symbol ?? null,
  line_start: anchor.lines?.start ?? null,
  line_end: anchor.lines?.end ?? null,
  commit: anchor.commit ?? null,
  hash: anchor.hash ?? null,
});
