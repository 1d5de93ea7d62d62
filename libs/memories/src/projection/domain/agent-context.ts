/**
 * The projection of a project's team knowledge into the rule files coding agents read at startup
 * (CLAUDE.md, AGENTS.md, a Cursor rule). The file is committed for the whole team, so it holds
 * only what every teammate may read: team-visible, not sensitive, in force, current (no stale
 * anchor), and the head of its supersedes chain.
 */

export const AGENT_CONTEXT_FORMATS = ['claude-md', 'agents-md', 'cursor-rules'] as const;
export type AgentContextFormat = (typeof AGENT_CONTEXT_FORMATS)[number];

/** The file each format is read from, relative to the repository root. */
export const AGENT_CONTEXT_FILES: Readonly<Record<AgentContextFormat, string>> = {
  'claude-md': 'CLAUDE.md',
  'agents-md': 'AGENTS.md',
  'cursor-rules': '.cursor/rules/team-memory.mdc',
};

/** At most this many memories are rendered (the first ones in the file's order). */
export const MAX_PROJECTED_MEMORIES = 200;
/** At most this many bytes (UTF-8) of rendered entries; the entries after it are left out. */
export const MAX_PROJECTED_BYTES = 32 * 1024;

/** Categories rendered whatever their tags; any other category only when pinned or tagged a convention. */
export const PROJECTED_CATEGORIES = ['decisions', 'corrections', 'preferences', 'gotchas'] as const;
/** Tags (any case) that make a memory of any category a convention of the project. */
export const CONVENTION_TAGS = ['convention', 'conventions'] as const;

/** The sections of the file, in order; a memory is in the first that takes it. */
export const PROJECTION_SECTIONS = [
  { key: 'pinned', title: 'Pinned' },
  { key: 'decisions', title: 'Decisions' },
  { key: 'corrections', title: 'Corrections' },
  { key: 'conventions', title: 'Preferences and conventions' },
  { key: 'gotchas', title: 'Gotchas' },
] as const;
export type ProjectionSection = (typeof PROJECTION_SECTIONS)[number]['key'];

/** A memory as the projection selects it. */
export interface ProjectedMemory {
  readonly id: number;
  readonly content: string;
  readonly category: string;
  readonly tags: readonly string[];
  readonly importance: number;
  /** The author's user name. */
  readonly author: string;
  /** It has a team pin. */
  readonly pinned: boolean;
}

const isConvention = (tags: readonly string[]) =>
  tags.some((tag) => (CONVENTION_TAGS as readonly string[]).includes(tag.toLowerCase()));

/** The section a memory is listed in: pinned first, else its category, else convention by tag. */
export function sectionOf(memory: ProjectedMemory): ProjectionSection {
  if (memory.pinned) return 'pinned';
  const { category } = memory;
  if (category === 'decisions' || category === 'corrections' || category === 'gotchas') return category;
  // Preferences, and a memory of another category tagged a convention.
  return 'conventions';
}

/** Whether the projection takes the memory at all (the selection says the same in SQL). */
export function isProjected(memory: ProjectedMemory): boolean {
  return (
    memory.pinned ||
    (PROJECTED_CATEGORIES as readonly string[]).includes(memory.category) ||
    isConvention(memory.tags)
  );
}

const rank = (memory: ProjectedMemory) => PROJECTION_SECTIONS.findIndex((s) => s.key === sectionOf(memory));

/**
 * The file's order, total and independent of time: section, then importance (highest first), then
 * id (oldest first).
 */
export function byProjectionOrder(a: ProjectedMemory, b: ProjectedMemory): number {
  return rank(a) - rank(b) || b.importance - a.importance || a.id - b.id;
}
