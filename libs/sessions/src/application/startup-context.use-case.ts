import { Injectable } from '@nestjs/common';
import { TransactionRunner } from '@app/persistence';
import { type Principal } from '@app/tenancy';
import { StartupContextRepository } from '../adapters/startup-context.repository';
import { MemoryLookup, type Memory } from '@app/memories';

export interface StartupContextInput {
  /** Memories of this project plus the project-less ones; every project when absent. */
  readonly project?: string;
  /** Candidates per section; the transport trims them further to its output budget. */
  readonly limit?: number;
}

export interface StartupContext {
  /** Highest importance first. */
  readonly important: Memory[];
  /** Most recently changed first, without those already in `important`. */
  readonly recent: Memory[];
}

export const DEFAULT_STARTUP_CONTEXT_LIMIT = 20;
export const MAX_STARTUP_CONTEXT_LIMIT = 100;

/** What an agent should know when a session starts: the most important and the newest memories. */
@Injectable()
export class StartupContextUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly startup: StartupContextRepository,
    private readonly memories: MemoryLookup,
  ) {}

  async execute(principal: Principal, input: StartupContextInput = {}): Promise<StartupContext> {
    const limit = Math.min(input.limit ?? DEFAULT_STARTUP_CONTEXT_LIMIT, MAX_STARTUP_CONTEXT_LIMIT);
    return this.tx.inTenant(principal, async (tx) => {
      const query = { project: input.project, limit };
      const importantIds = await this.startup.topIds(principal, tx, { ...query, order: 'importance' });
      const seen = new Set(importantIds);
      // Twice as many, so that dropping the ones already listed still leaves `limit`.
      const newest = await this.startup.topIds(principal, tx, {
        ...query,
        limit: limit * 2,
        order: 'recency',
      });
      const recentIds = newest.filter((id) => !seen.has(id)).slice(0, limit);
      const rows = await this.memories.findVisible(principal, tx, [...importantIds, ...recentIds]);
      const byId = new Map(rows.map((memory) => [memory.id, memory]));
      const pick = (ids: number[]) => ids.flatMap((id) => byId.get(id) ?? []);
      return { important: pick(importantIds), recent: pick(recentIds) };
    });
  }
}
