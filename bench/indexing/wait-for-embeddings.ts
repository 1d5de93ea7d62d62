import type { Client } from 'pg';

/** Which of `ids` have an embedding for `modelId` committed, i.e. are searchable by meaning. */
export async function embeddedIds(pg: Client, modelId: string, ids: readonly number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const { rows } = await pg.query<{ id: string }>(
    `SELECT memory_id::text AS id FROM memory_embeddings WHERE model_id = $1 AND memory_id = ANY($2::bigint[])`,
    [modelId, ids],
  );
  return rows.map((r) => Number(r.id));
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls until every id is embedded; resolves with the time that took, or rejects after `timeoutMs`. */
export async function waitUntilEmbedded(
  pg: Client,
  options: { modelId: string; ids: readonly number[]; timeoutMs: number; pollMs?: number },
): Promise<number> {
  const started = performance.now();
  const pending = new Set(options.ids);
  while (pending.size > 0) {
    for (const id of await embeddedIds(pg, options.modelId, [...pending])) pending.delete(id);
    if (pending.size === 0) break;
    if (performance.now() - started > options.timeoutMs) {
      throw new Error(
        `${pending.size} of ${options.ids.length} memories were not embedded after ${options.timeoutMs} ms`,
      );
    }
    await sleep(options.pollMs ?? 20);
  }
  return performance.now() - started;
}
