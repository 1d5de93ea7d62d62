import { visibleContent } from '../../contracts/memory.mapping';
import type { MyMemoryShare, MyTagShare, SharedMemory } from '../domain/share';

/** REST and MCP alike: the claude-memory-mcp server's shapes. */
export function presentSharedMemory(memory: SharedMemory) {
  return {
    id: memory.id,
    content: visibleContent(memory),
    category: memory.category,
    tags: memory.tags.join(','),
    importance: memory.importance,
    visibility: memory.visibility,
    shared_by: memory.owner,
    permission: memory.permission,
    created_at: memory.createdAt,
    updated_at: memory.updatedAt,
  };
}

export function presentMyShares(shares: { memories: MyMemoryShare[]; tags: MyTagShare[] }) {
  return {
    memory_shares: shares.memories.map((s) => ({
      memory_id: s.memoryId,
      shared_with: s.sharedWith,
      permission: s.permission,
      preview: s.preview,
      created_at: s.createdAt,
    })),
    tag_shares: shares.tags.map((s) => ({
      tag: s.tag,
      shared_with: s.sharedWith,
      permission: s.permission,
      created_at: s.createdAt,
    })),
  };
}
