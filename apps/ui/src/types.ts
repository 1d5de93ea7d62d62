// The JSON shapes of the routes the console calls (docs/api.md).

export interface MemoryItem {
  id: number;
  content: string;
  category: string;
  tags: string;
  importance: number;
  project: string | null;
  is_sensitive: boolean;
  owner: string;
  visibility: 'team' | 'private';
  shared_by: string | null;
  created_at: string;
  updated_at: string;
  expires_at: string | null;
  /** Present only on a memory about code. */
  anchors?: CodeAnchor[];
  /** The worst state of its anchors; present with `anchors`. */
  code_state?: CodeState;
  /** The branch of its project it belongs to until merged. */
  branch?: string;
}

export type CodeState = 'current' | 'stale' | 'orphaned';

/** An anchor as the service reads it back (docs/api.md, "Code anchors"). */
export interface CodeAnchor {
  repo: string;
  path: string;
  symbol: string | null;
  line_start: number | null;
  line_end: number | null;
  commit: string | null;
  hash: string | null;
  state: CodeState;
  /** The change that made it stale or orphaned. */
  changed: { event_id: number | null; at: string; hash: string | null; commit: string | null } | null;
  label: string;
}

/** An anchor as `POST /api/memories` and `PUT /api/memories/:id` take it. */
export interface AnchorInput {
  path: string;
  repo?: string;
  symbol?: string;
  line_start?: number;
  line_end?: number;
  commit?: string;
  hash?: string;
}

/** `POST /api/memories/:id/verify`: confirmed, or replaced by a correction. */
export interface VerifyAnswer {
  id: number;
  verified: boolean;
  anchors?: number;
  corrected_by?: { id: number; category: string; importance: number; review_state?: 'proposed' };
}

export interface MemoryLink {
  id: number;
  type: string;
  dir: 'out' | 'in';
  link_id: number;
  created_at: string;
}

export interface MemoryDetail extends MemoryItem {
  expanded_keywords: string;
  links_out: MemoryLink[];
  links_in: MemoryLink[];
}

export interface Explain {
  text_rank: number | null;
  vector_rank: number | null;
  text_score: number | null;
  vector_score: number | null;
  /** Share of the query (its terms' IDF) the memory's terms hold; null when the text leg did not return it. */
  text_coverage: number | null;
  /** The weights this recall fused the legs with. */
  leg_weights: { text: number; vector: number };
  context_score: number | null;
  fused_score: number;
  importance_factor: number;
  recency_factor: number;
  project_factor: number;
  evidence: 'text' | 'vector' | 'text+vector' | 'context';
  vector_floor: number | null;
}

export interface RecallHit extends MemoryItem {
  rank: number;
  explain?: Explain;
}

export interface ExportedMemory {
  id: number;
  content: string;
  category: string;
  tags: string[];
  importance: number;
  project: string | null;
  visibility: 'team' | 'private';
  is_sensitive: boolean;
  created_at: string;
  deleted_at: string | null;
}

export interface MyShares {
  memory_shares: Array<{ memory_id: number; shared_with: string; permission: string; created_at: string }>;
}

export interface Session {
  id: string;
  agent: string;
  project: string | null;
  git_branch: string | null;
  status: string;
  summary: string | null;
  started_at: string;
  ended_at: string | null;
  owner: string;
  event_counts?: Record<string, number>;
  events_total?: number;
}

export interface TimelineEvent {
  id: string;
  kind: string;
  payload: Record<string, unknown>;
  created_at: string;
}

export interface User {
  id: string;
  username: string;
  display_name: string | null;
  is_admin: boolean;
  disabled_at: string | null;
  created_at: string;
}

export interface ApiKey {
  id: string;
  username: string;
  name: string;
  prefix: string;
  scopes: string[];
  source: 'managed' | 'env' | 'oidc';
  status: 'active' | 'revoked' | 'expired';
  expires_at: string | null;
  last_used_at: string | null;
  created_at: string;
}

export interface Job {
  id: string;
  name: string;
  kind: string;
  status: string;
  state: string | null;
  progress: Record<string, number> | null;
  attempts: number | null;
  error: string | null;
  created_at: string;
  finished_at: string | null;
}

export interface AuditEntry {
  id: string;
  created_at: string;
  actor: string | null;
  via: string;
  action: string;
  target_type: string | null;
  target_id: string | null;
  details: Record<string, unknown> | null;
}

export interface Quota {
  used: number;
  limit: number | null;
}

export interface Usage {
  tenant: string;
  memories: Quota;
  memory_bytes: Quota;
  sessions_today: Quota & { resets_at: string };
}

export interface TenantStats {
  memories: { live: number; deleted: number };
  users: { total: number; disabled: number; admins: number };
  keys: { active: number; revoked: number; expired: number };
  sessions: { total: number; active: number };
  queue: Record<string, number>;
}

export interface Activity {
  since: string;
  by_category: Array<{ date: string; category: string; count: number }>;
  by_owner: Array<{ date: string; owner: string; count: number }>;
}

export interface MetricsSummary {
  recall: { requests: number; errors: number; p50_ms: number | null; p95_ms: number | null };
}

export interface Me {
  userId: string;
  isAdmin: boolean;
}

export type VersionedField = 'content' | 'tags' | 'category' | 'importance' | 'project' | 'visibility';

export interface MemoryVersion {
  memory_id: number;
  version: number;
  content: string;
  category: string;
  tags: string[];
  importance: number;
  project: string | null;
  visibility: 'team' | 'private';
  is_sensitive: boolean;
  author_id: string | null;
  author: string | null;
  created_at: string;
  replaced_at: string;
  replaced_by_id: string | null;
  replaced_by: string | null;
  changed_fields: VersionedField[];
}

export interface MemoryVersions {
  memory_id: number;
  versions: MemoryVersion[];
  next_before: number | null;
}

export interface VersionDiff {
  memory_id: number;
  from: number | 'current';
  to: number | 'current';
  changed_fields: VersionedField[];
  content_diff: { op: 'equal' | 'insert' | 'delete'; text: string }[];
  unified: string;
  fields: { field: VersionedField; from: unknown; to: unknown }[];
}
