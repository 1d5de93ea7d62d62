import { type Memory } from '@app/memories';
import { type RecalledMemory } from '@app/recall';

/** Seed wire format: tags as one comma-separated string, snake_case fields, integer ids. */
export function presentListItem(memory: Memory) {
  return {
    id: memory.id,
    // The secret itself is only ever returned by the audited reveal route.
    content: memory.isSensitive ? sensitivePlaceholder(memory.id) : memory.content,
    category: memory.category,
    tags: memory.tags.join(','),
    importance: memory.importance,
    project: memory.project,
    is_sensitive: memory.isSensitive,
    owner: memory.owner,
    created_at: memory.createdAt,
    updated_at: memory.updatedAt,
  };
}

export function presentDetail(memory: Memory) {
  return { ...presentListItem(memory), expanded_keywords: memory.expandedKeywords };
}

/** Seed placeholder: the secret itself is only ever returned by the audited reveal route. */
export const sensitivePlaceholder = (id: number) => `[SENSITIVE - use secret_get(id=${id})]`;

export function presentRecalled(item: RecalledMemory, explain: boolean) {
  const { memory, rank, explanation } = item;
  return {
    id: memory.id,
    content: memory.isSensitive ? sensitivePlaceholder(memory.id) : memory.content,
    category: memory.category,
    tags: memory.tags.join(','),
    importance: memory.importance,
    is_sensitive: memory.isSensitive,
    rank,
    owner: memory.owner,
    created_at: memory.createdAt,
    updated_at: memory.updatedAt,
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
