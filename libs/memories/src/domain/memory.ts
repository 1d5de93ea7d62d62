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
  readonly owner: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly deletedAt: string | null;
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
}

export type MemoryPatch = Partial<
  Pick<NewMemory, 'content' | 'category' | 'tags' | 'expandedKeywords' | 'importance'>
>;

export interface MemoryFilter {
  readonly category?: string;
  readonly tag?: string;
  readonly project?: string;
}

/** The short answer to a store: what clients of the seed API read back. */
export interface StoredMemory {
  readonly id: number;
  readonly category: string;
  readonly importance: number;
}

export const DELETE_PREVIEW_LENGTH = 50;

/** Filters a recall applies to both legs. Tags match when the memory has any of them. */
export interface RecallFilter {
  readonly category?: string;
  readonly tags?: readonly string[];
  readonly project?: string;
  readonly since?: Date;
  readonly before?: Date;
}

/** Names of the filters in effect, for `explain`. */
export function describeRecallFilter(filter: RecallFilter): string[] {
  const names: string[] = [];
  if (filter.category !== undefined) names.push(`category=${filter.category}`);
  if (filter.tags !== undefined && filter.tags.length > 0) names.push(`tags∋${filter.tags.join('|')}`);
  if (filter.project !== undefined) names.push(`project=${filter.project}`);
  if (filter.since !== undefined) names.push(`since=${filter.since.toISOString()}`);
  if (filter.before !== undefined) names.push(`before=${filter.before.toISOString()}`);
  return names;
}
