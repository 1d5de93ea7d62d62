import { Injectable } from '@nestjs/common';
import type { TenantScope, Tx } from '@app/persistence';
import { MemoryLookup, type FinalRead, type Memory, type MemoryLink } from '@app/memories';
import { redirectToHeads, servedPrefixLength } from '../domain/supersession';

export interface LinkedItem {
  /** Set when the hit was superseded and this is the head of its chain: the hit's id. */
  readonly redirectedFrom?: number;
  /** Links from and to the memory whose both ends the caller can see, oldest first. */
  readonly links: readonly MemoryLink[];
}

/** A ranked item as served: its memory's row in place of its id, with links. */
export type ServedItem<T extends { readonly memoryId: number }> = Omit<T, 'memoryId'> & {
  readonly memory: Memory;
} & LinkedItem;

/**
 * What links do to a ranked recall, inside its transaction: superseded hits are replaced by the
 * newest version the caller can see (`heads`, found with the candidates), and the rows of the
 * memories that can be served are read with their links in one query — only those: the top
 * `limit` once redirected, and the hits they stand for.
 */
@Injectable()
export class RecallLinks {
  constructor(private readonly memories: MemoryLookup) {}

  async serve<T extends { readonly memoryId: number }>(
    scope: TenantScope,
    tx: Tx,
    ranked: readonly T[],
    heads: ReadonlyMap<number, number>,
    limit: number,
    options: FinalRead = {},
    servable?: (memory: Memory) => boolean,
  ): Promise<Array<ServedItem<T>>> {
    const ids = ranked.map((item) => item.memoryId);
    const prefix = ranked.slice(0, servedPrefixLength(ids, heads, limit));
    const wanted = new Set(
      prefix.flatMap((item) => [item.memoryId, heads.get(item.memoryId) ?? item.memoryId]),
    );
    const found = await this.memories.findVisibleWithLinks(scope, tx, [...wanted], options);
    const rows = new Map(found.map(({ memory }) => [memory.id, memory]));
    const links = new Map(found.map(({ memory, links }) => [memory.id, links]));
    // A row gone since ranking (deleted meanwhile) is not served; a missing head leaves its hit.
    const withRows = prefix.flatMap(({ memoryId, ...item }) => {
      const memory = rows.get(memoryId);
      return memory ? [{ ...item, memory }] : [];
    });
    return redirectToHeads(withRows, heads, rows, limit, servable).map((item) => ({
      ...item,
      links: links.get(item.memory.id) ?? [],
    }));
  }
}
