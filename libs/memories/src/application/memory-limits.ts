/** Size limits applied by the use cases (from configuration; documented in docs/api.md). */
export interface MemoryLimits {
  readonly maxContentBytes: number;
  readonly maxImportBatch: number;
  readonly maxListLimit: number;
}

export const MEMORY_LIMITS = Symbol('MEMORY_LIMITS');
export const DEFAULT_LIST_LIMIT = 50;
