/** One path a code event reports (paths and git blob ids only; never contents). */
export interface CodeChange {
  readonly path: string;
  readonly status: 'added' | 'modified' | 'deleted' | 'renamed';
  /** The file's blob id after the change; null when deleted. */
  readonly hash: string | null;
  /** Renamed: the path before. */
  readonly from?: string;
}

/** What a client's hook or a CI bot reports changed in a repository. */
export interface NewCodeEvent {
  readonly repo: string;
  readonly branch?: string;
  readonly before?: string;
  readonly after?: string;
  /** `branch` was merged: its branch-scoped memories become the project's. */
  readonly merged: boolean;
  /** `branch` was deleted without a merge: its branch-scoped memories are soft-deleted. */
  readonly branchDeleted: boolean;
  readonly changes: readonly CodeChange[];
}

export interface CodeEvent {
  readonly id: number;
  readonly repo: string;
  readonly branch: string | null;
  readonly before: string | null;
  readonly after: string | null;
  readonly merged: boolean;
  readonly branchDeleted: boolean;
  readonly changes: number;
  readonly createdAt: string;
  /** When the worker applied it to the tenant's anchors; null while queued. */
  readonly appliedAt: string | null;
  readonly anchorsChanged: number | null;
  /** Memories of the branch the event promoted (a merge) or deleted (a deleted branch). */
  readonly branchMemories: number | null;
}
