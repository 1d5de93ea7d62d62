/** The API's counter of recalls' text legs by where they ran (TextIndexRegistry). */
export const TEXT_LEG_METRIC = 'memsvc_recall_text_leg_total';

/** Text legs served by the in-memory index and by the Postgres fallback, summed over processes. */
export interface TextLegCounts {
  readonly index: number;
  readonly sql: number;
}

/** Reads the counter out of a Prometheus text exposition (absent: nothing counted yet). */
export function parseTextLegCounts(exposition: string): TextLegCounts {
  let index = 0;
  let sql = 0;
  for (const line of exposition.split('\n')) {
    if (!line.startsWith(`${TEXT_LEG_METRIC}{`)) continue;
    const source = /source="([^"]*)"/.exec(line)?.[1];
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (!Number.isFinite(value)) continue;
    if (source === 'index') index += value;
    else if (source === 'sql') sql += value;
  }
  return { index, sql };
}

/** The share of the text legs between two readings that the index served (null: none ran, or unknown). */
export function indexShare(before: TextLegCounts | null, after: TextLegCounts | null): number | null {
  if (!before || !after) return null;
  const index = after.index - before.index;
  const total = index + after.sql - before.sql;
  return total > 0 ? index / total : null;
}

/** Sums the counter over API processes' `/metrics`; null when one does not answer it (e.g. behind a token). */
export async function scrapeTextLegCounts(apiUrls: readonly string[]): Promise<TextLegCounts | null> {
  let index = 0;
  let sql = 0;
  for (const url of apiUrls) {
    const response = await fetch(`${url}/metrics`).catch(() => null);
    if (!response?.ok) return null;
    const counts = parseTextLegCounts(await response.text());
    index += counts.index;
    sql += counts.sql;
  }
  return { index, sql };
}
