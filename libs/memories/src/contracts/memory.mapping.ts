import { codeStateOf } from '../domain/anchor';
import type { ImportedMemory, Memory, MemoryPatch, NewMemory, StoredMemory } from '../domain/memory';
import { presentAnchor, toNewAnchor } from './anchor.schemas';
import type { PortableMemoryVersion } from '../domain/memory-version';
import type {
  ImportMemoryItemBody,
  PortableVersionBody,
  StoreMemoryBody,
  UpdateMemoryBody,
} from './memory.schemas';

/**
 * The one mapping between the memory contracts and the use cases, used by REST and MCP alike:
 * request bodies (snake_case, seed wire format) to use-case input, and memories to the wire.
 */

export function toNewMemory(body: StoreMemoryBody & { supersedes?: number }): NewMemory {
  const anchors = body.anchors?.map(toNewAnchor);
  return {
    content: body.content,
    category: body.category,
    tags: body.tags,
    expandedKeywords: body.expanded_keywords,
    importance: body.importance,
    project: body.project ?? null,
    visibility: body.visibility,
    expiresAt: body.expires_at,
    forceSensitive: body.force_sensitive,
    supersedes: body.supersedes,
    ...(anchors?.length ? { anchors } : {}),
    ...(body.branch !== undefined ? { branch: body.branch } : {}),
  };
}

/** An import item keeps its original times when it has them (a re-imported export). */
export function toImportedMemory(body: ImportMemoryItemBody): ImportedMemory {
  return {
    ...toNewMemory(body),
    createdAt: body.created_at,
    updatedAt: body.updated_at,
    sourceId: body.id,
    sourceLinks: body.links?.map((l) => ({ id: l.id, linkType: l.link_type })),
    versions: body.versions?.map(toPortableVersion),
  };
}

export function toPortableVersion(body: PortableVersionBody): PortableMemoryVersion {
  return {
    version: body.version,
    content: body.content,
    category: body.category,
    tags: body.tags,
    importance: body.importance,
    project: body.project,
    visibility: body.visibility,
    isSensitive: body.is_sensitive,
    validFrom: body.created_at,
    replacedAt: body.replaced_at,
    changedFields: body.changed_fields,
  };
}

/** An earlier version as an export writes it (the import item's `versions`). */
export function presentPortableVersion(version: PortableMemoryVersion): PortableVersionBody {
  return {
    version: version.version,
    content: version.content,
    category: version.category,
    tags: [...version.tags],
    importance: version.importance,
    project: version.project,
    visibility: version.visibility,
    is_sensitive: version.isSensitive,
    created_at: version.validFrom,
    replaced_at: version.replacedAt,
    changed_fields: [...version.changedFields],
  };
}

/** Only the fields sent change; absent ones stay undefined. */
export function toMemoryPatch(body: Partial<UpdateMemoryBody>): MemoryPatch {
  return {
    content: body.content,
    category: body.category,
    tags: body.tags,
    expandedKeywords: body.expanded_keywords,
    importance: body.importance,
    visibility: body.visibility,
    expiresAt: body.expires_at,
    anchors: body.anchors?.map(toNewAnchor),
  };
}

/** Seed placeholder: the secret itself is only ever returned by the audited reveal route. */
/** A store's answer; a store that wrote nothing names the memory that already says it. */
export function presentStored(stored: StoredMemory) {
  const { id, category, importance, duplicate } = stored;
  if (stored.reviewState === 'proposed')
    return { id, category, importance, review_state: 'proposed' as const };
  if (!duplicate) return { id, category, importance };
  const similarity = Math.round(duplicate.similarity * 1000) / 1000;
  return { id, category, importance, duplicate_of: id, match: duplicate.match, similarity };
}

export const sensitivePlaceholder = (id: number) => `[SENSITIVE - use secret_get(id=${id})]`;

/**
 * What readers see of a memory's content: a sensitive memory shows its redacted text (the secret
 * replaced by `[REDACTED:<kind>]`, so the rest stays readable to teammates and agents) followed by the
 * seed's hint naming the audited reveal.
 */
export function visibleContent(memory: Pick<Memory, 'id' | 'content' | 'isSensitive'>): string {
  return memory.isSensitive ? `${memory.content} ${sensitivePlaceholder(memory.id)}` : memory.content;
}

/** Seed wire format: tags as one comma-separated string, snake_case fields, integer ids. */
export function presentListItem(memory: Memory) {
  return {
    id: memory.id,
    content: visibleContent(memory),
    category: memory.category,
    tags: memory.tags.join(','),
    importance: memory.importance,
    project: memory.project,
    is_sensitive: memory.isSensitive,
    visibility: memory.visibility,
    expires_at: memory.expiresAt,
    owner: memory.owner,
    shared_by: memory.sharedBy,
    created_at: memory.createdAt,
    updated_at: memory.updatedAt,
    ...(memory.pinned !== undefined ? { pinned: [...memory.pinned] } : {}),
    ...(memory.reviewState !== undefined ? { review_state: memory.reviewState } : {}),
    ...(memory.branch !== undefined ? { branch: memory.branch } : {}),
    // Only a memory about code has anchors; others read as they always did.
    ...(memory.anchors?.length
      ? { anchors: memory.anchors.map(presentAnchor), code_state: codeStateOf(memory.anchors) ?? 'current' }
      : {}),
  };
}

export function presentDetail(memory: Memory) {
  return { ...presentListItem(memory), expanded_keywords: memory.expandedKeywords };
}
