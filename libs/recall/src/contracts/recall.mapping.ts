import { pendingProposalsOf, presentLinkOf, presentListItem } from '@app/memories';
import type { RecalledMemory, RecallInput } from '../application/recall-memories.use-case';
import type { RecallBody } from './recall.schemas';

/** A recall request as REST and MCP parse it (the MCP tool offers fewer filters). */
export type RecallRequest = Pick<RecallBody, 'context' | 'expanded_query' | 'sort_by' | 'limit'> &
  Partial<
    Pick<
      RecallBody,
      'category' | 'tags' | 'project' | 'project_boost' | 'since' | 'before' | 'include_superseded' | 'tree'
    >
  >;

/** The one mapping between the recall contract and the use case, used by REST and MCP alike. */
export function toRecallInput(body: RecallRequest): RecallInput {
  return {
    context: body.context,
    expandedQuery: body.expanded_query,
    category: body.category,
    tags: body.tags,
    // Normalised by the contract (projectSchema): a git remote URL arrives as its identity.
    project: body.project,
    projectBoost: body.project_boost,
    since: body.since,
    before: body.before,
    sortBy: body.sort_by,
    limit: body.limit,
    includeSuperseded: body.include_superseded,
    ...(body.tree ? { tree: body.tree } : {}),
  };
}

/**
 * A recalled memory: the list item's shape (one presenter for both) plus its rank, where it was
 * redirected from (a superseded hit), its links and `explain`.
 */
export function presentRecalled(item: RecalledMemory, explain: boolean) {
  const { memory, rank, explanation } = item;
  return {
    ...presentListItem(memory),
    rank,
    ...(item.redirectedFrom !== undefined ? { redirected_from: item.redirectedFrom } : {}),
    links: item.links.map((link) => presentLinkOf(memory.id, link)),
    ...(explain
      ? {
          explain: {
            text_rank: explanation.textRank,
            vector_rank: explanation.vectorRank,
            text_score: explanation.textScore,
            vector_score: explanation.vectorScore,
            text_coverage: explanation.textCoverage,
            leg_weights: explanation.legWeights,
            context_from: explanation.contextFrom,
            context_score: explanation.contextScore,
            fused_score: explanation.fusedScore,
            importance_factor: explanation.importanceFactor,
            recency_factor: explanation.recencyFactor,
            project_factor: explanation.projectFactor,
            code_factor: explanation.codeFactor,
            filters: explanation.filters,
            model: explanation.model,
            text_source: explanation.textSource,
            vector_source: explanation.vectorSource,
            evidence: explanation.evidence,
            vector_floor: explanation.vectorFloor,
            relevance: {
              passed: explanation.relevance.passed,
              coverage: explanation.relevance.coverage,
              unknown_share: explanation.relevance.unknownShare,
            },
            proposals: pendingProposalsOf(memory.id, item.links),
          },
        }
      : {}),
  };
}
