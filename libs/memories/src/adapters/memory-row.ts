/** A memory row as the repositories select it (ids as `pg` returns bigints; timestamps already ISO text). */
export interface MemoryRow {
  id: string | number;
  content: string;
  category: string;
  tags: string[];
  expanded_keywords: string;
  importance: number;
  project: string | null;
  is_sensitive: boolean;
  owner: string;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}
