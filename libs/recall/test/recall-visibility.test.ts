import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { EmbeddingModelRepository } from '@app/embeddings/testing';
import { DEFAULT_RECALL_OPTIONS, RecallMemoriesUseCase, type VectorRecall } from '@app/recall';
import {
  RecallCandidateRepository,
  MemoryTextSearchRepository,
  MemoryVectorRepository,
  RecallLinks,
  buildTextIndexLeg,
  type TextLeg,
} from '@app/recall/testing';
import { MemoryReadRepository } from '@app/memories/testing';
import { type TenantScope } from '@app/persistence';
import { ALL_SCOPES, MEMBER_SCOPES, type Principal } from '@app/tenancy';
import { createTestTenant, openTestDatabase, type TestDatabase } from '@app/testing';
import { createScratchDatabase, type ScratchDatabase } from '../../../test/support/scratch-database';

/**
 * Recall returns exactly what `visibleMemorySql` allows, in both legs and both vector plans:
 * own memories, team-visible ones, memories shared directly or through one of the owner's tag
 * rules (once each, however many rules match), and for an admin every memory of the tenant —
 * never a teammate's unshared private memory, a deleted one, or another tenant's.
 */
const MODEL = 'test-visibility-4d';
const D = 4;
const Q = [1, 0, 0, 0];

interface Seed {
  readonly owner: TenantScope;
  readonly visibility?: 'private' | 'team';
  readonly tags?: string[];
  readonly category?: string;
  readonly deleted?: boolean;
}

describe('recall sees own, team, shared and (for admins) every memory of the tenant', () => {
  let scratch: ScratchDatabase;
  let db: TestDatabase;
  let olga: TenantScope;
  let rita: TenantScope;
  let sam: TenantScope;
  let adam: TenantScope;
  /** Adam's admin key without private access: a member's view. */
  let admin: TenantScope;
  let otto: TenantScope;
  const ids: Record<string, number> = {};
  const text = new MemoryTextSearchRepository();
  const plans = [
    ['exact', new MemoryVectorRepository({ exactScanMaxRows: 20_000 })],
    ['hnsw', new MemoryVectorRepository({ exactScanMaxRows: 0 })],
  ] as const;

  const seed = async (name: string, s: Seed) => {
    const n = Object.keys(ids).length;
    ids[name] = await db.tx.inTenant(s.owner, async (tx) => {
      const { rows } = await tx.query<{ id: string }>(
        `INSERT INTO memories (tenant_id, owner_id, content, content_hash, visibility, tags, category, deleted_at)
         VALUES ($1, $2, $3, sha256(convert_to($3, 'UTF8')), $4, $5, $6, CASE WHEN $7 THEN now() END)
         RETURNING id`,
        [
          s.owner.tenantId,
          s.owner.userId,
          `kestrel note ${name.replace(/-/g, ' ')}`,
          s.visibility ?? 'private',
          s.tags ?? [],
          s.category ?? 'facts',
          s.deleted ?? false,
        ],
      );
      // Every vector points near Q, each a little differently, so all are candidates.
      await tx.query(
        `INSERT INTO memory_embeddings (memory_id, model_id, tenant_id, owner_id, embedding, input_hash)
         VALUES ($1, $2, $3, $4, $5::vector, sha256(convert_to($6, 'UTF8')))`,
        [rows[0].id, MODEL, s.owner.tenantId, s.owner.userId, JSON.stringify([1, n / 100, 0, 0]), name],
      );
      return Number(rows[0].id);
    });
  };
  const share = (memory: string, withUser: TenantScope, permission = 'read') =>
    db.tx.inTenant(olga, (tx) =>
      tx.query(
        `INSERT INTO memory_shares (memory_id, owner_id, shared_with, tenant_id, permission) VALUES ($1, $2, $3, $4, $5)`,
        [ids[memory], olga.userId, withUser.userId, olga.tenantId, permission],
      ),
    );
  const shareTag = (tag: string, withUser: TenantScope) =>
    db.tx.inTenant(olga, (tx) =>
      tx.query(
        `INSERT INTO tag_shares (owner_id, tag, shared_with, tenant_id, permission) VALUES ($1, $2, $3, $4, 'read')`,
        [olga.userId, tag, withUser.userId, olga.tenantId],
      ),
    );
  const names = (found: readonly { memoryId: number }[]) =>
    found.map((h) => Object.keys(ids).find((n) => ids[n] === h.memoryId) ?? `unknown ${h.memoryId}`).sort();
  let indexLeg: TextLeg;
  /** The SQL text leg's hits, checked against the in-memory index's for the same caller. */
  const textHits = async (scope: TenantScope, filter = {}) => {
    const input = { text: 'kestrel', k: 50, filter };
    const fromSql = await db.tx.inTenant(scope, (tx) => text.search(scope, tx, input));
    const indexed = await db.tx.inTenant(scope, (tx) => indexLeg.search(scope, tx, input));
    expect(indexed.source).toBe('index');
    expect(names(indexed.hits)).toEqual(names(fromSql));
    return fromSql;
  };
  const vectorSearch = (repo: MemoryVectorRepository, scope: TenantScope, filters = {}) =>
    db.tx.inTenant(scope, (tx) =>
      repo.searchDetailed(scope, tx, { modelId: MODEL, dimensions: D, vector: Q, k: 50, filters }),
    );

  const expected = {
    rita: ['olga-both', 'olga-shared', 'olga-tagged', 'olga-team', 'rita-own'],
    sam: ['olga-team', 'sam-private'],
    adam: ['olga-both', 'olga-private', 'olga-shared', 'olga-tagged', 'olga-team', 'rita-own', 'sam-private'],
    otto: ['otto-team'],
    admin: ['olga-team', 'olga-team-tagged'],
  };
  const callers = () => ({ rita, sam, adam, otto, admin }) as const;

  beforeAll(async () => {
    scratch = await createScratchDatabase(inject('adminDatabaseUrl'), 'recall_visibility');
    db = await openTestDatabase(scratch.url, 4);
    const team = await createTestTenant(db, 'vis');
    olga = await team.addUser('olga');
    rita = await team.addUser('rita');
    sam = await team.addUser('sam');
    adam = { ...(await team.addUser('adam')), scopes: ALL_SCOPES, privateAccess: true };
    admin = { ...adam, privateAccess: false };
    await team.allowAdminPrivateAccess();
    otto = await (await createTestTenant(db, 'vis-other')).addUser('otto');
    await db.tx.asSystem(async (tx) => {
      const models = new EmbeddingModelRepository();
      await models.insert(tx, { id: MODEL, dimensions: D, status: 'active' });
      await models.ensureIndex(tx, { id: MODEL, dimensions: D });
    });
    await seed('olga-private', { owner: olga });
    await seed('olga-team', { owner: olga, visibility: 'team' });
    await seed('olga-shared', { owner: olga, category: 'decisions' });
    await seed('olga-tagged', { owner: olga, tags: ['ops'] });
    await seed('olga-both', { owner: olga, tags: ['ops', 'db'] });
    await seed('olga-shared-deleted', { owner: olga, deleted: true });
    await seed('olga-team-tagged', { owner: olga, visibility: 'team', tags: ['db'] });
    await seed('rita-own', { owner: rita });
    await seed('sam-private', { owner: sam, tags: ['ops'] });
    await seed('otto-team', { owner: otto, visibility: 'team' });
    // olga-team-tagged is team-visible and tagged: the team branch finds it, the tag rule must not again.
    expected.rita.push('olga-team-tagged');
    expected.sam.push('olga-team-tagged');
    expected.adam.push('olga-team-tagged');
    for (const list of Object.values(expected)) list.sort();
    await share('olga-shared', rita);
    await share('olga-both', rita, 'write');
    await share('olga-shared-deleted', rita);
    await shareTag('ops', rita);
    await shareTag('db', rita);
    const { leg, registry } = buildTextIndexLeg(db.tx, { maxBytes: 64 * 1024 * 1024 });
    indexLeg = leg;
    expect(await registry.warm(olga)).toBe(true);
    expect(await registry.warm(otto)).toBe(true);
  });

  afterAll(async () => {
    await db?.close();
    await scratch?.drop();
  });

  it('text leg: exactly the visible memories, each once', async () => {
    for (const [who, scope] of Object.entries(callers())) {
      expect(names(await textHits(scope)), who).toEqual(expected[who as keyof typeof expected]);
    }
  });

  it.each(plans)('vector leg: exactly the visible memories, each once (%s)', async (plan, repo) => {
    for (const [who, scope] of Object.entries(callers())) {
      const result = await vectorSearch(repo, scope);
      expect(result.plan, who).toBe(plan);
      expect(names(result.hits), who).toEqual(expected[who as keyof typeof expected]);
    }
  });

  it('sizes the plan by the visible set: own, team, direct and tag shares, each memory once', async () => {
    const [, exact] = plans[0];
    // rita: her own row, two team rows, olga-shared and olga-both directly, olga-tagged by tag.
    expect((await vectorSearch(exact, rita)).candidates).toBe(6);
    expect((await vectorSearch(exact, sam)).candidates).toBe(3);
  });

  it('applies the recall filters to shared memories in both legs', async () => {
    expect(names(await textHits(rita, { tags: ['ops'] }))).toEqual(['olga-both', 'olga-tagged']);
    expect(names(await textHits(rita, { category: 'decisions' }))).toEqual(['olga-shared']);
    for (const [, repo] of plans) {
      expect(names((await vectorSearch(repo, rita, { tags: ['ops'] })).hits)).toEqual([
        'olga-both',
        'olga-tagged',
      ]);
    }
  });

  /** The recall use case over the in-memory text leg and the exact vector plan, every query at Q. */
  const recallUseCase = (options = DEFAULT_RECALL_OPTIONS) => {
    const [, exact] = plans[0];
    const vectors: VectorRecall = {
      prepare: async () => ({ modelId: MODEL, dimensions: D, vector: Float32Array.from(Q) }),
      search: (scope, tx, query, input) =>
        exact.search(scope, tx, { ...query, k: input.k, filters: input.filter }),
      // Only recall runs here.
      activeModel: () => Promise.reject(new Error('recall alone runs here')),
      nearestOwn: () => Promise.reject(new Error('recall alone runs here')),
      nearDuplicatePairs: () => Promise.reject(new Error('recall alone runs here')),
    };
    const candidates = new RecallCandidateRepository();
    const links = new RecallLinks(new MemoryReadRepository());
    return new RecallMemoriesUseCase(db.tx, indexLeg, vectors, candidates, links, options);
  };

  it('returns the same set through the recall use case (both legs, rows loaded under RLS)', async () => {
    const recall = recallUseCase();
    for (const [who, scope] of Object.entries(callers())) {
      const principal: Principal = {
        ...scope,
        tenantSlug: 'vis',
        username: who,
        keyId: who,
        scopes: scope === adam ? ALL_SCOPES : MEMBER_SCOPES,
      };
      const found = await recall.execute(principal, {
        context: 'kestrel',
        expandedQuery: '',
        sortBy: 'relevance',
        limit: 50,
      });
      expect(names(found.map((r) => ({ memoryId: r.memory.id }))), who).toEqual(
        expected[who as keyof typeof expected],
      );
    }
  });

  it('answers a word no memory holds with nothing when meaning alone is not close enough; the evaluation can lift that floor', async () => {
    // Every vector here is within 0.01 of the query's direction: a floor above 1 lets none pass.
    const recall = recallUseCase({ ...DEFAULT_RECALL_OPTIONS, unmatchedVectorFloor: 1.01 });
    const principal: Principal = {
      ...rita,
      tenantSlug: 'vis',
      username: 'rita',
      keyId: 'rita',
      scopes: MEMBER_SCOPES,
    };
    const input = { context: 'zorblatt', expandedQuery: '', sortBy: 'relevance', limit: 50 } as const;
    expect(await recall.execute(principal, input)).toEqual([]);
    const unfloored = await recall.execute(principal, { ...input, relevanceFloor: false });
    expect(names(unfloored.map((r) => ({ memoryId: r.memory.id })))).toEqual(expected.rita);
    // A query word that some memory holds: the vector leg's hits need no floor.
    const matched = await recall.execute(principal, { ...input, context: 'kestrel' });
    expect(names(matched.map((r) => ({ memoryId: r.memory.id })))).toEqual(expected.rita);
  });

  it('stops showing a memory once its share or tag rule is removed', async () => {
    await db.tx.inTenant(olga, (tx) =>
      tx.query(`DELETE FROM tag_shares WHERE owner_id = $1 AND shared_with = $2 AND tag = 'ops'`, [
        olga.userId,
        rita.userId,
      ]),
    );
    const without = expected.rita.filter((n) => n !== 'olga-tagged');
    expect(names(await textHits(rita))).toEqual(without);
    for (const [, repo] of plans) expect(names((await vectorSearch(repo, rita)).hits)).toEqual(without);
    await shareTag('ops', rita);
  });
});
