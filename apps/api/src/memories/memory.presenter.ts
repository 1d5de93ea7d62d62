import type { Memory } from '@app/memories';

/** Seed wire format: tags as one comma-separated string, snake_case fields, integer ids. */
export function presentListItem(memory: Memory) {
  return {
    id: memory.id,
    content: memory.content,
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
