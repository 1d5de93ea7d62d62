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
