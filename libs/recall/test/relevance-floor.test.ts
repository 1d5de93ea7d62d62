import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DEFAULT_RECALL_OPTIONS, presentRecalled, recallSchema, toRecallInput } from '@app/recall';
import { type Principal } from '@app/tenancy';
import { createTestTenant, memberPrincipal, openTestDatabase, type TestDatabase } from '@app/testing';
import {
  installedLexicon,
  teamMemoryStore,
  textLegOf,
  textLegRecall,
  type TextLegKind,
} from '../../../test/support/text-recall';
import type { RecallMemoriesUseCase } from '@app/recall';

/**
 * The relevance floor: a recall answers nothing when nothing the caller may read can answer it —
 * a question about a name no readable memory mentions and no dictionary knows, or about a topic
 * whose words are absent from the caller's memories. Only what the caller may read decides: a word
 * in someone else's private memory changes nothing. The same in Postgres and in the index.
 */
describe.each<TextLegKind>(['postgres', 'index'])('relevance floor (%s)', (kind) => {
  let db: TestDatabase;
  let alice: Principal;
  let bob: Principal;
  let carol: Principal;
  let recall: RecallMemoriesUseCase;
  const ids: Record<string, number> = {};
  const ask = async (who: Principal, context: string) => {
    const input = toRecallInput(recallSchema.parse({ context, limit: 10 }));
    const results = await recall.execute(who, { ...input, legs: { text: true, vector: false } });
    return results.map((r) => presentRecalled(r, true));
  };

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 4);
    const textLeg = textLegOf(db.tx, kind);
    recall = textLegRecall(db.tx, DEFAULT_RECALL_OPTIONS, textLeg.leg, installedLexicon());
    const store = teamMemoryStore(db.tx);
    const tenant = await createTestTenant(db, 'floor');
    alice = await memberPrincipal(tenant, 'alice');
    bob = await memberPrincipal(tenant, 'bob');
    carol = await memberPrincipal(tenant, 'carol');
    ids.payments = await store(alice, 'The payments service keeps its webhook secrets in Vault');
    ids.deploys = await store(alice, 'Deploys of the payments service go through Argo CD every Tuesday');
    ids.bobs = await store(bob, 'Sneemflix rollout: the owner of the sneemflix service is Bob', {
      visibility: 'private',
    });
    ids.shared = await store(bob, 'The quorvane batch job runs nightly', {
      visibility: 'private',
      tags: ['ops'],
    });
    await db.tx.inTenant(bob, (tx) =>
      tx.query(
        `INSERT INTO tag_shares (owner_id, tag, shared_with, tenant_id, permission) VALUES ($1, 'ops', $2, $3, 'read')`,
        [bob.userId, carol.userId, bob.tenantId],
      ),
    );
    for (const who of [alice, bob, carol]) expect(await textLeg.warm(who)).toBe(true);
  });
  afterAll(async () => db.close());

  it('answers a question whose words are in the memories, and explain says why', async () => {
    const found = await ask(alice, 'Where does the payments service keep its webhook secrets?');
    expect(found[0]?.id).toBe(ids.payments);
    expect(found[0]?.explain?.relevance).toMatchObject({ passed: 'coverage', unknown_share: 0 });
    expect(found[0]?.explain?.relevance.coverage).toBeGreaterThan(0.5);
  });

  it('answers nothing for a name nobody mentions, though the question shares a word with a memory', async () => {
    expect(await ask(alice, 'Who owns the blorptane service?')).toEqual([]);
    // Without the floor the shared word would bring the payments memories back.
    expect(await ask(alice, 'Who owns the payments service?')).not.toEqual([]);
  });

  it("a word only in another member's private memory changes nothing for the caller", async () => {
    expect(await ask(alice, 'Who owns the sneemflix service?')).toEqual([]);
    const own = await ask(bob, 'Who owns the sneemflix service?');
    expect(own[0]?.id).toBe(ids.bobs);
  });

  it('a memory shared by a tag rule counts for its recipient only', async () => {
    expect(await ask(alice, 'When does the quorvane job run?')).toEqual([]);
    expect((await ask(carol, 'When does the quorvane job run?'))[0]?.id).toBe(ids.shared);
  });

  it('answers nothing for a topic the memories lack, though a common word matches', async () => {
    expect(await ask(alice, 'What is a good recipe for sourdough bread every Tuesday?')).toEqual([]);
    expect((await ask(alice, 'What happens every Tuesday with deploys?'))[0]?.id).toBe(ids.deploys);
  });
});
