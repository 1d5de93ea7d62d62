import type { MemoryAnchor, NewAnchor } from './anchor';
import type { LinkType } from './memory-link';
import type { PortableMemoryVersion } from './memory-version';
import type { MemoryPins } from './pin';

/**
 * `team`: every user of the tenant reads it; `private`: its owner, the users it is shared with
 * (directly or by tag) and admins.
 */
export type Visibility = 'team' | 'private';
export const VISIBILITIES: readonly Visibility[] = ['team', 'private'];

/** A memory as the domain sees it (tags as a list; the wire format joins them with commas). */
export interface Memory {
  readonly id: number;
  readonly content: string;
  readonly category: string;
  readonly tags: readonly string[];
  readonly expandedKeywords: string;
  readonly importance: number;
  readonly project: string | null;
  readonly isSensitive: boolean;
  readonly visibility: Visibility;
  /** ISO time after which every read leaves it out (null: kept until deleted). */
  readonly expiresAt: string | null;
  readonly owner: string;
  /** The owner's username when the reader sees it through a share (directly or by tag); else null. */
  readonly sharedBy: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** A proposal waiting for review, or a rejected one; absent: in force (migration 1763700000048). */
  readonly reviewState?: 'proposed' | 'rejected';
  readonly deletedAt: string | null;
  /** The pins the reader sees on it (team, their own); absent where a read does not ask. */
  readonly pinned?: MemoryPins;
  /** Its links to code, in the order they were given; absent where a read does not ask. */
  readonly anchors?: readonly MemoryAnchor[];
  /** The branch of its project it belongs to until merged (recall serves it on that branch only). */
  readonly branch?: string;
}

export interface NewMemory {
  readonly content: string;
  /** The caller says the content is a secret; it must never be stored in clear. */
  readonly forceSensitive?: boolean;
  readonly category: string;
  readonly tags: readonly string[];
  readonly expandedKeywords: string;
  readonly importance: number;
  readonly project: string | null;
  /** Absent: the configured default (DEFAULT_VISIBILITY). */
  readonly visibility?: Visibility;
  /** Absent: the category's configured lifetime (MEMORY_TTL_BY_CATEGORY), else never. */
  readonly expiresAt?: Date;
  /** Id of a memory this one replaces: stored with a `supersedes` link to it. */
  readonly supersedes?: number;
  /** The code it speaks of (a repo-less anchor takes the memory's project). */
  readonly anchors?: readonly NewAnchor[];
  /** A branch of its project: served by recall and the startup context on that branch only, until merged. */
  readonly branch?: string;
  /** Import only: the original creation time (ISO, kept to the microsecond). Absent: now. */
  readonly createdAt?: string;
  /** Import only: the original last-change time. Absent: the creation time. */
  readonly updatedAt?: string;
}

/**
 * A memory being imported: when it comes from an export, its id there and its outgoing links, so
 * links between memories of the same import are made again between the new rows.
 */
export interface ImportedMemory extends NewMemory {
  readonly sourceId?: number;
  readonly sourceLinks?: readonly { readonly id: number; readonly linkType: LinkType }[];
  /** Its earlier versions there, oldest first. */
  readonly versions?: readonly PortableMemoryVersion[];
}

export type MemoryPatch = Partial<
  Pick<
    NewMemory,
    | 'content'
    | 'category'
    | 'tags'
    | 'expandedKeywords'
    | 'importance'
    | 'visibility'
    | 'expiresAt'
    | 'anchors'
  >
>;

export interface MemoryFilter {
  readonly category?: string;
  readonly tag?: string;
  readonly project?: string;
  readonly visibility?: Visibility;
  /** The owner's username (`owner` is an identity field that requests may not carry). */
  readonly author?: string;
}

/** The short answer to a store: what clients of the seed API read back. */
export interface StoredMemory {
  readonly id: number;
  readonly category: string;
  readonly importance: number;
  /**
   * Set when nothing new was stored: `id` is an existing memory that already says this, the
   * caller's own (same text) or a teammate's team memory (same text, or the same meaning).
   */
  readonly duplicate?: {
    readonly match: 'exact' | 'near';
    readonly similarity: number;
    /** The memory is a teammate's (the caller may read it, not change it). */
    readonly teammates?: boolean;
  };
  /**
   * `proposed`: stored for review, not in force yet (a correction of a memory the caller may not
   * change, or a team memory in a tenant that reviews them). Absent: in force.
   */
  readonly reviewState?: 'proposed';
}

export const DELETE_PREVIEW_LENGTH = 50;

/** The preview a delete of an already deleted memory answers with. */
export const ALREADY_DELETED_PREVIEW = '[already deleted]';
