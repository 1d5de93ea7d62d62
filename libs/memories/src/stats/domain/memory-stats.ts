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

/** One day's count of memories created (UTC), in one category or by one author. */
export interface DailyCount {
  readonly date: string;
  readonly name: string;
  readonly count: number;
}

/** `GET /api/stats/activity`: memories created per day over what the caller can read. */
export interface MemoryActivity {
  readonly since: string;
  readonly byCategory: readonly DailyCount[];
  readonly byOwner: readonly DailyCount[];
}

/** How many days back the activity series may reach. */
export const MAX_ACTIVITY_DAYS = 365;
