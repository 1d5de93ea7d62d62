import type { Visibility } from '../domain/memory';

/** Size limits applied by the use cases (from configuration; documented in docs/api.md). */
export interface MemoryLimits {
  readonly maxContentBytes: number;
  readonly maxImportBatch: number;
  readonly maxListLimit: number;
}

export const MEMORY_LIMITS = Symbol('MEMORY_LIMITS');

/** Defaults applied by the write path (from configuration). */
export interface MemoryDefaults {
  /** A memory stored without `visibility` gets this one (DEFAULT_VISIBILITY). */
  readonly defaultVisibility: Visibility;
  /** Lifetime in ms per category for memories stored without `expiresAt` (MEMORY_TTL_BY_CATEGORY). */
  readonly ttlByCategory?: Readonly<Record<string, number>>;
}

export const MEMORY_DEFAULTS = Symbol('MEMORY_DEFAULTS');
export const DEFAULT_LIST_LIMIT = 50;
