import { presentListItem } from '@app/memories';
import type { RecalledMemory, RecallInput } from '../application/recall-memories.use-case';
import type { RecallBody } from './recall.schemas';

/** A recall request as REST and MCP parse it (the MCP tool offers fewer filters). */
export type RecallRequest = Pick<RecallBody, 'context' | 'expanded_query' | 'sort_by' | 'limit'> &
  Partial<Pick<RecallBody, 'category' | 'tags' | 'project' | 'since' | 'before'>>;

/** The one mapping between the recall contract and the use case, used by REST and MCP alike. */
export function toRecallInput(body: RecallRequest): RecallInput {
  return {
    context: body.context,
    expandedQuery: body.expanded_query,
    category: body.category,
    tags: body.tags,
    project: body.project,
    since: body.since,
    before: body.before,
    sortBy: body.sort_by,
    limit: body.limit,
  };
}

/** A recalled memory: the list item's shape (one presenter for both) plus its rank and `explain`. */
export function presentRecalled(item: RecalledMemory, explain: boolean) {
  const { memory, rank, explanation } = item;
  return {
    ...presentListItem(memory),
    rank,
    ...(explain
      ? {
          explain: {
            text_rank: explanation.textRank,
            vector_rank: explanation.vectorRank,
            fused_score: explanation.fusedScore,
            importance_factor: explanation.importanceFactor,
            recency_factor: explanation.recencyFactor,
            filters: explanation.filters,
            model: explanation.model,
          },
        }
      : {}),
  };
}
