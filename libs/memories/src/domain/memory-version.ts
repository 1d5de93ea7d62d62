import type { Visibility } from './memory';

/** The fields whose change keeps the memory's previous state as a version. */
export const VERSIONED_FIELDS = [
  'content',
  'tags',
  'category',
  'importance',
  'project',
  'visibility',
] as const;
export type VersionedField = (typeof VERSIONED_FIELDS)[number];

/**
 * What a recorded change may name: a versioned field, or `anchors` (the memory's links to code
 * were set or verified; the state kept is the memory's own, anchors are not part of it).
 */
export const VERSION_CHANGE_FIELDS = [...VERSIONED_FIELDS, 'anchors'] as const;
export type VersionChangeField = (typeof VERSION_CHANGE_FIELDS)[number];

/** A memory's state as a version keeps it (a sensitive memory's redacted text, never its secret). */
export interface MemoryState {
  readonly content: string;
  readonly category: string;
  readonly tags: readonly string[];
  readonly importance: number;
  readonly project: string | null;
  readonly visibility: Visibility;
  readonly isSensitive: boolean;
}

/**
 * An earlier state of a memory: version `n` is the state its `n`-th recorded change replaced.
 * `authorId` wrote that state (null once unknown), `validFrom` is when; `replacedBy` made the change
 * that replaced it at `replacedAt`, touching `changedFields`.
 */
export interface MemoryVersion extends MemoryState {
  readonly memoryId: number;
  readonly version: number;
  readonly authorId: string | null;
  readonly validFrom: string;
  readonly replacedBy: string | null;
  readonly replacedAt: string;
  readonly changedFields: readonly VersionChangeField[];
}

/** A version as an export carries it and an import brings it back (authors are the importer's). */
export interface PortableMemoryVersion extends MemoryState {
  readonly version: number;
  readonly validFrom: string;
  readonly replacedAt: string;
  readonly changedFields: readonly VersionChangeField[];
}

/** The values a change writes, for the fields it names (absent: unchanged). */
export interface VersionedChange {
  readonly content?: string;
  readonly category?: string;
  readonly tags?: readonly string[];
  readonly importance?: number;
  readonly visibility?: Visibility;
}
