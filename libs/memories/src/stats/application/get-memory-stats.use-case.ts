import { Inject, Injectable } from '@nestjs/common';
import { READ_ONLY, TransactionRunner } from '@app/persistence';
import { type Principal } from '@app/tenancy';
import { MemoryStatsRepository } from '../adapters/memory-stats.repository';
import type { MemoryActivity, MemoryStats, NamedCount } from '../domain/memory-stats';

/** `GET /api/stats`: totals, categories, importance buckets and recent activity of what the caller reads. */
@Injectable()
export class GetMemoryStatsUseCase {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(MemoryStatsRepository) private readonly stats: MemoryStatsRepository,
  ) {}

  execute(principal: Principal): Promise<MemoryStats> {
    return this.tx.inTenant(principal, (tx) => this.stats.stats(principal, tx), READ_ONLY);
  }
}

/** `GET /api/categories` and `GET /api/tags`: the names in the caller's visible memories, with counts. */
@Injectable()
export class ListMemoryFacetsUseCase {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(MemoryStatsRepository) private readonly stats: MemoryStatsRepository,
  ) {}

  execute(principal: Principal, facet: 'categories' | 'tags'): Promise<NamedCount[]> {
    return this.tx.inTenant(
      principal,
      (tx) =>
        facet === 'categories' ? this.stats.categories(principal, tx) : this.stats.tags(principal, tx),
      READ_ONLY,
    );
  }
}

/** `GET /api/stats/activity`: memories created per day, by category and by author, of what the caller reads. */
@Injectable()
export class GetMemoryActivityUseCase {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(MemoryStatsRepository) private readonly stats: MemoryStatsRepository,
  ) {}

  execute(principal: Principal, input: { days: number }): Promise<MemoryActivity> {
    return this.tx.inTenant(principal, (tx) => this.stats.activity(principal, tx, input.days), READ_ONLY);
  }
}
