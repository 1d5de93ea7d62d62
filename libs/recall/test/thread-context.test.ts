import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  DEFAULT_FUSION,
  DEFAULT_RECALL_OPTIONS,
  presentRecalled,
  recallSchema,
  toRecallInput,
} from '@app/recall';
import { type Principal } from '@app/tenancy';
import { createTestTenant, memberPrincipal, openTestDatabase, type TestDatabase } from '@app/testing';
import {
  teamMemoryStore,
  textLegOf,
  textLegRecall,
  type TextLegKind,
} from '../../../test/support/text-recall';
import type { TextLeg } from '@app/recall/testing';

/**
 * Context around a memory: turns of one thread (`thread:`/`session:` tag) lend each other part of
 * their relevance, so a reply that repeats none of the question's words is found next to it.
 */
describe.each<TextLegKind>(['postgres', 'index'])('recall with thread context (%s)', (kind) => {
  let db: TestDatabase;
  let alice: Principal;
  let bob: Principal;
  const ids: Record<string, number> = {};

  let store: ReturnType<typeof teamMemoryStore>;
  let leg: TextLeg;
  const recall = (contextWeight: number) =>
    textLegRecall(db.tx, { ...DEFAULT_RECALL_OPTIONS, fusion: { ...DEFAULT_FUSION, contextWeight } }, leg);
  const ask = async (who: Principal, context: string, contextWeight = 0.5) => {
    const input = toRecallInput(recallSchema.parse({ context, limit: 10 }));
    const results = await recall(contextWeight).execute(who, {
      ...input,
      legs: { text: true, vector: false },
    });
    return results.map((r) => presentRecalled(r, true));
  };
  const at = (minute: number) => new Date(Date.UTC(2026, 2, 3, 9, minute)).toISOString();

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 4);
    const textLeg = textLegOf(db.tx, kind);
    leg = textLeg.leg;
    store = teamMemoryStore(db.tx);
    const tenant = await createTestTenant(db, 'thread');
    alice = await memberPrincipal(tenant, 'alice');
    bob = await memberPrincipal(tenant, 'bob');
    const thread = { tags: ['thread:standup-0303'] };
    ids.question = await store(alice, 'Priya: did the invoicing cutover to Postgres happen?', {
      ...thread,
      createdAt: at(0),
    });
    ids.reply = await store(alice, 'Sam: yes, last Tuesday, together with Omar', {
      ...thread,
      createdAt: at(1),
    });
    ids.after = await store(alice, 'Priya: great, thanks', { ...thread, createdAt: at(2) });
    ids.elsewhere = await store(alice, 'Sam: yes, Omar is on call this week', { createdAt: at(3) });
    // Bob's private note carries the same tag: it is not alice's thread and she cannot read it.
    ids.bobs = await store(bob, 'Bob: the invoicing cutover checklist', {
      ...thread,
      visibility: 'private',
      createdAt: at(0),
    });
    expect(await textLeg.warm(alice)).toBe(true);
  });
  afterAll(async () => db.close());

  it('finds the reply to the matching turn and says where its score came from', async () => {
    const found = await ask(alice, 'When was invoicing moved over to Postgres?');
    const order = found.map((m) => m.id);
    expect(order[0]).toBe(ids.question);
    expect(order).toContain(ids.reply);
    expect(order).not.toContain(ids.elsewhere);
    const reply = found.find((m) => m.id === ids.reply);
    expect(reply?.explain).toMatchObject({
      text_rank: null,
      context_from: ids.question,
      text_source: kind === 'index' ? 'index' : 'sql:disabled',
    });
    expect(reply?.explain?.context_score).toBeGreaterThan(0);
  });

  it('finds only the matching turn with context off', async () => {
    const found = await ask(alice, 'When was invoicing moved over to Postgres?', 0);
    expect(found.map((m) => m.id)).toEqual([ids.question]);
  });

  it('skips a deleted turn and reaches the next live one', async () => {
    await db.tx.asSystem((tx) =>
      tx.query(`UPDATE memories SET deleted_at = now() WHERE id = $1`, [ids.reply]),
    );
    try {
      const found = await ask(alice, 'When was invoicing moved over to Postgres?');
      expect(found.map((m) => m.id)).not.toContain(ids.reply);
      expect(found.find((m) => m.id === ids.after)?.explain?.context_from).toBe(ids.question);
    } finally {
      await db.tx.asSystem((tx) =>
        tx.query(`UPDATE memories SET deleted_at = NULL WHERE id = $1`, [ids.reply]),
      );
    }
  });

  it("never lends another owner's memory as context, nor shows it", async () => {
    const found = await ask(alice, 'invoicing cutover checklist');
    expect(found.map((m) => m.id)).not.toContain(ids.bobs);
    const bobs = await ask(bob, 'invoicing cutover checklist');
    expect(bobs.map((m) => m.id)).toContain(ids.bobs);
    // Alice's team-visible thread is readable by bob, but it is not bob's own thread.
    expect(bobs.find((m) => m.explain?.context_from === ids.bobs)).toBeUndefined();
  });
});

/**
 * Threads without tags (RECALL_THREAD_WINDOW_MINUTES, here 10): an owner's untagged memories written
 * one after another, each within the window of the one before, lend each other relevance as tagged
 * turns do; memories written at one instant (one request's batch of separate facts) do not. Off by
 * default.
 */
describe.each<TextLegKind>(['postgres', 'index'])('recall with implicit threads (%s)', (kind) => {
  let db: TestDatabase;
  let carol: Principal;
  const ids: Record<string, number> = {};
  let leg: TextLeg;
  const ask = async (context: string, threadWindowMinutes = 10, narrow: Record<string, unknown> = {}) => {
    const recall = textLegRecall(
      db.tx,
      { ...DEFAULT_RECALL_OPTIONS, fusion: { ...DEFAULT_FUSION, threadWindowMinutes } },
      leg,
    );
    const input = toRecallInput(recallSchema.parse({ context, limit: 10, ...narrow }));
    const results = await recall.execute(carol, { ...input, legs: { text: true, vector: false } });
    return results.map((r) => presentRecalled(r, true));
  };
  const at = (minute: number, ms = 0) => new Date(Date.UTC(2026, 2, 4, 9, minute, 0, ms)).toISOString();

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 4);
    const textLeg = textLegOf(db.tx, kind);
    leg = textLeg.leg;
    const store = teamMemoryStore(db.tx);
    const tenant = await createTestTenant(db, 'implicit');
    carol = await memberPrincipal(tenant, 'carol');
    ids.question = await store(carol, 'Priya: did the billing export move to the new bucket?', {
      createdAt: at(0),
    });
    ids.reply = await store(carol, 'Sam: yes, on Monday, Omar ran it', { createdAt: at(1) });
    // One instant: separate facts stored together are not each other's context.
    ids.batchA = await store(carol, 'Deploys of the ledger freeze on Fridays', { createdAt: at(30) });
    ids.batchB = await store(carol, 'The cafeteria closes at three', { createdAt: at(30) });
    // Exactly the window after the turn before it: still its thread; a millisecond more: not.
    ids.sandbox = await store(carol, 'The sandbox cluster resets weekly', { createdAt: at(60) });
    ids.sandboxReply = await store(carol, 'Ask Dana before using it', { createdAt: at(70) });
    ids.late = await store(carol, 'Lunch is served upstairs', { createdAt: at(80, 1) });
    expect(await textLeg.warm(carol)).toBe(true);
  });
  afterAll(async () => db.close());

  it('finds the untagged reply next to the matching turn, from the turn before it', async () => {
    const found = await ask('When was the billing export moved to the new bucket?');
    expect(found[0]?.id).toBe(ids.question);
    expect(found.find((m) => m.id === ids.reply)?.explain).toMatchObject({
      text_rank: null,
      context_from: ids.question,
    });
    // With the window at 0 (the default) only tagged threads count.
    expect(DEFAULT_FUSION.threadWindowMinutes).toBe(0);
    expect((await ask('When was the billing export moved to the new bucket?', 0)).map((m) => m.id)).toEqual([
      ids.question,
    ]);
  });

  it('with a filter, returns only what the legs found (neighbours still lend)', async () => {
    const found = await ask('When was the billing export moved to the new bucket?', undefined, {
      category: 'facts',
    });
    expect(found.map((m) => m.id)).toEqual([ids.question]);
    expect(found[0]?.explain?.filters).toEqual(['category=facts']);
  });

  it('does not join memories written at the same instant', async () => {
    const found = await ask('When do deploys of the ledger freeze?');
    expect(found.map((m) => m.id)).toEqual([ids.batchA]);
  });

  it('joins a memory written exactly the window after the one before it, not one a millisecond later', async () => {
    const found = await ask('How often does the sandbox cluster reset?');
    expect(found[0]?.id).toBe(ids.sandbox);
    expect(found.find((m) => m.id === ids.sandboxReply)?.explain?.context_from).toBe(ids.sandbox);
    const reply = await ask('Ask Dana before using it');
    expect(reply[0]?.id).toBe(ids.sandboxReply);
    expect(reply.map((m) => m.id)).not.toContain(ids.late);
  });
});
