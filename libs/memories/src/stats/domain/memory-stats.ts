/** `GET /api/stats`: counts over the memories the caller can read. */
export interface MemoryStats {
  readonly total: number;
  readonly byCategory: Readonly<Record<string, number>>;
  /** Upstream's five importance buckets, `0.0-0.2` … `0.8-1.0`, each present. */
  readonly byImportance: Readonly<Record<string, number>>;
  /** Days of the last 30 (UTC) with memories created or updated. */
  readonly recentActivity: readonly { date: string; created: number; updated: number }[];
  /** Visible through a share (by memory or tag), neither own nor team. */
  readonly sharedWithMe: number;
  /** Direct shares of the caller's live memories. */
  readonly sharedByMe: number;
}

export interface NamedCount {
  readonly name: string;
  readonly count: number;
}
