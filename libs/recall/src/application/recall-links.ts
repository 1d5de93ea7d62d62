import { Injectable } from '@nestjs/common';
import type { TenantScope, Tx } from '@app/persistence';
import { MemoryLinkLookup, MemoryLookup, type Memory, type MemoryLink } from '@app/memories';
import { redirectToHeads } from '../domain/supersession';

export interface LinkedItem {
  /** Set when the hit was superseded and this is the head of its chain: the hit's id. */
  readonly redirectedFrom?: number;
  /** Links from and to the memory whose both ends the caller can see, oldest first. */
  readonly links: readonly MemoryLink[];
}

/**
 * What links do to a ranked recall, inside its transaction: superseded hits are replaced by the
 * newest version the caller can see (one recursive query for every hit; `includeSuperseded`
 * skips it), then every served memory gets its links (one query).
 */
@Injectable()
export class RecallLinks {
  constructor(
    private readonly memories: MemoryLookup,
    private readonly links: MemoryLinkLookup,
  ) {}

  async serve<T extends { readonly memory: Memory }>(
    scope: TenantScope,
    tx: Tx,
    ranked: readonly T[],
    options: { readonly limit: number; readonly includeSuperseded?: boolean },
  ): Promise<Array<T & LinkedItem>> {
    const served = options.includeSuperseded
      ? ranked.slice(0, options.limit)
      : await this.redirect(scope, tx, ranked, options.limit);
    const links = await this.links.findTouching(
      scope,
      tx,
      served.map((item) => item.memory.id),
    );
    return served.map((item) => ({
      ...item,
      links: links.filter((l) => l.srcId === item.memory.id || l.dstId === item.memory.id),
    }));
  }

  private async redirect<T extends { readonly memory: Memory }>(
    scope: TenantScope,
    tx: Tx,
    ranked: readonly T[],
    limit: number,
  ): Promise<Array<T & { readonly redirectedFrom?: number }>> {
    const heads = await this.links.findSupersedingHeads(
      scope,
      tx,
      ranked.map((item) => item.memory.id),
    );
    if (heads.size === 0) return ranked.slice(0, limit);
    const rows = new Map(ranked.map((item) => [item.memory.id, item.memory]));
    const missing = [...new Set(heads.values())].filter((id) => !rows.has(id));
    for (const memory of await this.memories.findVisible(scope, tx, missing)) rows.set(memory.id, memory);
    return redirectToHeads(ranked, heads, rows, limit);
  }
}
