import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  DEFAULT_RECALL_OPTIONS,
  presentRecalled,
  type RecallMemoriesUseCase,
  recallSchema,
  toRecallInput,
} from '@app/recall';
import { type Principal } from '@app/tenancy';
import { createTestTenant, memberPrincipal, openTestDatabase, type TestDatabase } from '@app/testing';
import { teamMemoryStore, textLegRecall } from '../../../test/support/text-recall';

/**
 * `project_boost`: an agent working in project P gets P's memories first, and still the
 * project-less and other projects' knowledge after them (unlike the `project` filter).
 */
describe('recall with a project boost', () => {
  let db: TestDatabase;
  let recall: RecallMemoriesUseCase;
  let alice: Principal;
  let stranger: Principal;
  const ids: Record<string, number> = {};

  let store: ReturnType<typeof teamMemoryStore>;
  /** A recall as REST and MCP parse it (so a git remote URL is normalised), text leg only. */
  const ask = async (body: Record<string, unknown>) => {
    const input = toRecallInput(recallSchema.parse({ context: 'deploy pipeline helm rollback', ...body }));
    const results = await recall.execute(alice, { ...input, legs: { text: true, vector: false } });
    return results.map((r) => presentRecalled(r, true));
  };

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 4);
    recall = textLegRecall(db.tx, { ...DEFAULT_RECALL_OPTIONS, projectBoost: 1.5 });
    store = teamMemoryStore(db.tx);
    const tenant = await createTestTenant(db, 'boost');
    alice = await memberPrincipal(tenant, 'alice');
    const bob = await memberPrincipal(tenant, 'bob');
    stranger = await memberPrincipal(await createTestTenant(db, 'boost-other'), 'sam');
    // Matches every query word, but belongs to another project.
    ids.zephyr = await store(bob, 'Zephyr deploy pipeline: helm upgrade, then rollback on failure', {
      project: 'github.com/acme/zephyr',
    });
    ids.general = await store(bob, 'Every helm chart lives in the charts repository');
    ids.atlas = await store(
      alice,
      'Atlas deploy pipeline: helm rollback runbook, notes and checklists of the on-call team',
      { project: 'github.com/acme/atlas' },
    );
    ids.foreign = await store(stranger, 'Atlas deploy pipeline helm rollback', {
      project: 'github.com/acme/atlas',
    });
  });
  afterAll(async () => db.close());

  it('ranks the project’s memory below a better match of another project without the boost', async () => {
    const plain = await ask({});
    const order = plain.map((m) => m.id);
    expect(order[0]).toBe(ids.zephyr);
    expect(order.indexOf(ids.atlas)).toBeGreaterThan(order.indexOf(ids.zephyr));
    expect(plain.every((m) => m.explain?.project_factor === 1)).toBe(true);
  });

  it('ranks it first with the boost (given as a git remote URL), keeping the other memories after it', async () => {
    const boosted = await ask({ project_boost: 'git@github.com:Acme/Atlas.git' });
    expect(boosted.map((m) => m.id)).toEqual(expect.arrayContaining([ids.zephyr, ids.general, ids.atlas]));
    expect(boosted[0]).toMatchObject({ id: ids.atlas, project: 'github.com/acme/atlas' });
    expect(boosted[0].explain?.project_factor).toBe(1.5);
    const zephyr = boosted.find((m) => m.id === ids.zephyr);
    expect(zephyr?.explain?.project_factor).toBe(1);
    // The boost multiplies the fused score; importance and recency nudge as before.
    const top = boosted[0].explain!;
    expect(boosted[0].rank).toBeCloseTo(
      top.fused_score * top.importance_factor * top.recency_factor * top.project_factor,
      12,
    );
    expect(boosted.map((m) => m.id)).not.toContain(ids.foreign);
  });

  it('still narrows to the project with the filter, which accepts a remote URL too', async () => {
    const filtered = await ask({ project: 'https://github.com/acme/atlas' });
    expect(filtered.map((m) => m.id)).toEqual([ids.atlas]);
    expect(filtered[0].explain?.filters).toEqual(['project=github.com/acme/atlas']);
  });
});
