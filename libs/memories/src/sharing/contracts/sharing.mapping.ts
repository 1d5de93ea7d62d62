import { presentListItem } from '../../contracts/memory.mapping';
import type { MyMemoryShare, MyTagShare, SharedMemory } from '../../domain/share';

/** REST and MCP alike: the claude-memory-mcp server's shapes. */
export function presentSharedMemory(memory: SharedMemory) {
  const { id, content, category, tags, importance, visibility, created_at, updated_at } =
    presentListItem(memory);
  const item = { id, content, category, tags, importance, visibility };
  return { ...item, shared_by: memory.owner, permission: memory.permission, created_at, updated_at };
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
