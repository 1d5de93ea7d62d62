import { Injectable } from '@nestjs/common';
import type { Tx } from '@app/persistence';
import type { IndexedDoc, TextAudience } from '../domain/text-index';
import type { IndexedVector } from '../domain/vector-index';

/** What a recall brings the index up to date with (`recall_text_index_delta`, one statement). */
export interface TextIndexDelta {
  /** Every change below this position is in `changed`/`removed` or was already held. */
  readonly horizon: number;
  /** The query's lexemes as Postgres makes them (`to_tsvector('english', …)`). */
  readonly lexemes: readonly string[];
  readonly changed: readonly IndexedDoc[];
  /** Memories gone outright since the position (purged, their owner deleted), with its position. */
  readonly removed: readonly { readonly id: number; readonly seq: number }[];
  readonly shared: ReadonlySet<number>;
  readonly tagRules: ReadonlyMap<string, ReadonlySet<string>>;
  /** The model's vectors written at or after the vector index's position (when one was asked for). */
  readonly vectors: readonly IndexedVector[];
}

/**
 * A delta as `recall_index_refresh` answers it (migration 1763700000040): the query's lexemes in
 * byte order, the lexeme of each word asked for, and every share and tag rule of the tenant.
 */
export interface TextIndexRefresh extends Omit<TextIndexDelta, 'shared' | 'tagRules'> {
  /** Each query chunk asked for: its lexemes as Postgres makes them of it alone. */
  readonly words: readonly (readonly string[])[];
  readonly audiences: TenantAudiences;
}

/** Every member's direct shares and the tag rules naming them, by recipient. */
export interface TenantAudiences {
  readonly shared: ReadonlyMap<string, ReadonlySet<number>>;
  readonly tagRules: ReadonlyMap<string, ReadonlyMap<string, ReadonlySet<string>>>;
}

/** The vector index a delta also brings up to date: its model and position. */
export interface VectorFeedPosition {
  readonly modelId: string;
  readonly after: number;
}

type DocTuple = [
  id: number,
  seq: number,
  live: boolean,
  ownerId: string,
  team: boolean,
  tags: string[],
  category: string,
  project: string | null,
  createdMs: number,
  expiresMs: number | null,
  lexemes: string[],
  tfs: number[],
  importance?: number,
];

const toDoc = (t: DocTuple): IndexedDoc => ({
  id: Number(t[0]),
  seq: Number(t[1]),
  live: t[2],
  ownerId: t[3],
  team: t[4],
  tags: t[5] ?? [],
  category: t[6],
  project: t[7],
  createdMs: Number(t[8]),
  expiresMs: t[9] === null ? null : Number(t[9]),
  lexemes: t[10] ?? [],
  tfs: t[11] ?? [],
  importance: t[12] ?? undefined,
});

/**
 * The feed of the in-memory text index (migration 1763700000028): a tenant's live memories page by
 * page for a load, and at each recall what changed since the index's position. Both answer for the
 * transaction's own tenant only.
 */
@Injectable()
export class TextIndexFeedRepository {
  /** The position a load starts from: every change below it is settled (see `sync_horizon`). */
  async horizon(tx: Tx): Promise<number> {
    const { rows } = await tx.query<{ horizon: string }>(`SELECT sync_horizon() AS horizon`);
    return Number(rows[0].horizon);
  }

  /** Up to `limit` live memories with ids above `afterId`, by id. */
  async page(tx: Tx, afterId: number, limit: number): Promise<IndexedDoc[]> {
    const { rows } = await tx.query<{ doc: DocTuple }>(`SELECT doc FROM recall_text_index_page($1, $2)`, [
      afterId,
      limit,
    ]);
    return rows.map((r) => toDoc(r.doc));
  }

  /** Up to `limit` of the tenant's vectors of a model with memory ids above `afterId`, by id. */
  async vectorPage(tx: Tx, modelId: string, afterId: number, limit: number): Promise<IndexedVector[]> {
    const { rows } = await tx.query<{ memory_id: string; seq: string; embedding: string }>(
      `SELECT memory_id, seq, embedding FROM recall_vector_index_page($1, $2, $3)`,
      [modelId, afterId, limit],
    );
    return rows.map((r) => ({
      id: Number(r.memory_id),
      seq: Number(r.seq),
      values: JSON.parse(r.embedding) as number[],
    }));
  }

  /**
   * Everything since position `after` (and, with `vectors`, the model's vectors since the vector
   * index's position) in one statement, with the query's lexemes and the caller's shares.
   */
  async delta(
    tx: Tx,
    after: number,
    queryText: string,
    vectors: VectorFeedPosition | null = null,
  ): Promise<TextIndexDelta> {
    const { rows } = await tx.query<{
      horizon: string;
      lexemes: string[] | null;
      changed: DocTuple[];
      removed: [number, number][];
      shared: string[];
      tag_rules: [string, string][];
      vectors: [number, number, string][];
    }>(
      `SELECT * FROM recall_index_delta($1, $2, $3, $4)`,
      [after, queryText, vectors?.modelId ?? null, vectors?.after ?? 0],
      {
        prepared: true,
      },
    );
    const row = rows[0];
    const tagRules = new Map<string, Set<string>>();
    for (const [owner, tag] of row.tag_rules) {
      const tags = tagRules.get(owner) ?? new Set<string>();
      tags.add(tag);
      tagRules.set(owner, tags);
    }
    return {
      horizon: Number(row.horizon),
      lexemes: row.lexemes ?? [],
      changed: row.changed.map(toDoc),
      removed: row.removed.map(([id, seq]) => ({ id: Number(id), seq: Number(seq) })),
      shared: new Set(row.shared.map(Number)),
      tagRules,
      vectors: row.vectors.map(toVector),
    };
  }

  /**
   * Everything since position `after` in one statement, as `delta` (with `vectors`, the model's
   * vectors too), with every share and tag rule of the tenant and the lexemes of `words`.
   */
  async refresh(
    tx: Tx,
    after: number,
    queryText: string,
    words: readonly string[],
    vectors: VectorFeedPosition | null = null,
  ): Promise<TextIndexRefresh> {
    const { rows } = await tx.query<{
      horizon: string;
      lexemes: string[] | null;
      words: string[][];
      changed: DocTuple[];
      removed: [number, number][];
      shares: [number, string][];
      tag_rules: [string, string, string][];
      vectors: [number, number, string][];
    }>(
      `SELECT * FROM recall_index_refresh($1, $2, $3, $4, $5)`,
      [after, queryText, words, vectors?.modelId ?? null, vectors?.after ?? 0],
      { prepared: true },
    );
    const row = rows[0];
    const shared = new Map<string, Set<number>>();
    for (const [memoryId, recipient] of row.shares) {
      const ids = shared.get(recipient) ?? new Set<number>();
      ids.add(Number(memoryId));
      shared.set(recipient, ids);
    }
    const tagRules = new Map<string, Map<string, Set<string>>>();
    for (const [owner, tag, recipient] of row.tag_rules) {
      const rules = tagRules.get(recipient) ?? new Map<string, Set<string>>();
      const tags = rules.get(owner) ?? new Set<string>();
      tags.add(tag);
      rules.set(owner, tags);
      tagRules.set(recipient, rules);
    }
    return {
      horizon: Number(row.horizon),
      lexemes: row.lexemes ?? [],
      words: row.words ?? [],
      changed: row.changed.map(toDoc),
      removed: row.removed.map(([id, seq]) => ({ id: Number(id), seq: Number(seq) })),
      vectors: row.vectors.map(toVector),
      audiences: { shared, tagRules },
    };
  }
}

const toVector = ([id, seq, embedding]: [number, number, string]): IndexedVector => ({
  id: Number(id),
  seq: Number(seq),
  values: JSON.parse(embedding) as number[],
});

const NOTHING_SHARED: ReadonlySet<number> = new Set();
const NO_TAG_RULES: ReadonlyMap<string, ReadonlySet<string>> = new Map();

/** One member's read rule inputs from the tenant's shares and tag rules. */
export function audienceIn(
  audiences: TenantAudiences,
  caller: { userId: string; admin: boolean },
): TextAudience {
  return {
    ...caller,
    shared: audiences.shared.get(caller.userId) ?? NOTHING_SHARED,
    tagRules: audiences.tagRules.get(caller.userId) ?? NO_TAG_RULES,
  };
}

/** The read rule's inputs for one caller, from a delta. */
export function audienceOf(delta: TextIndexDelta, caller: { userId: string; admin: boolean }): TextAudience {
  return { ...caller, shared: delta.shared, tagRules: delta.tagRules };
}
