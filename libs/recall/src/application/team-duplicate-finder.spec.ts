import { describe, expect, it } from 'vitest';
import type { AppConfig } from '@app/config';
import type { TransactionRunner } from '@app/persistence';
import type { Principal } from '@app/tenancy';
import type { MemoryLookup, TeamDuplicateProbeSlot } from '@app/memories';
import type { PreparedQuery, VectorHit, VectorRecall } from '../ports/vector-recall.port';
import { TeamDuplicateFinder } from './team-duplicate-finder';

// The probe an import's items go through before the write: several texts are embedded together
// (asked at once, so the embedder's micro-batcher runs them as one batch) and searched in one
// transaction, and the answers come back in input order.

const principal = { tenantId: 't', userId: 'u' } as unknown as Principal;
const TEAM_FACT = 'Deploys go through the blue-green pipeline after the canary passes';

function finder(options: { teammates: boolean }) {
  const log = {
    transactions: 0,
    options: [] as unknown[],
    prepared: [] as string[],
    inFlight: 0,
    maxInFlight: 0,
    searches: 0,
  };
  const tx = {
    inTenant: async (_p: Principal, work: (tx: unknown) => Promise<unknown>, options?: unknown) => {
      log.transactions += 1;
      log.options.push(options);
      return work({});
    },
  } as unknown as TransactionRunner;
  const memories = {
    teammatesShareMemories: async () => options.teammates,
    findVisible: async (_p: Principal, _tx: unknown, ids: readonly number[]) =>
      ids.map((id) => ({ id, content: TEAM_FACT })),
  } as unknown as MemoryLookup;
  const vectors = {
    prepare: async (text: string): Promise<PreparedQuery | null> => {
      log.prepared.push(text);
      log.inFlight += 1;
      log.maxInFlight = Math.max(log.maxInFlight, log.inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      log.inFlight -= 1;
      // A text with no word the model knows has no vector.
      if (text === '???') return null;
      return { modelId: 'm', dimensions: 1, vector: Float32Array.of(text === TEAM_FACT ? 1 : 0.5) };
    },
    search: async (_s: unknown, _tx: unknown, query: PreparedQuery): Promise<VectorHit[]> => {
      log.searches += 1;
      // The team fact is memory 7; only the same text is close enough to count.
      return [{ memoryId: 7, distance: query.vector[0] === 1 ? 0.01 : 0.6 } as VectorHit];
    },
  } as unknown as VectorRecall;
  const config = { dedup: { noopThreshold: 0.92, updateThreshold: 0.75 } } as unknown as AppConfig;
  const slot = { fill: () => undefined } as unknown as TeamDuplicateProbeSlot;
  return { finder: new TeamDuplicateFinder(tx, memories, vectors, config, slot), log };
}

describe('TeamDuplicateFinder.candidatesOfEach', () => {
  it('embeds every text at once and searches them all in one transaction, answering in input order', async () => {
    const { finder: probe, log } = finder({ teammates: true });
    const texts = ['A new fact about the cache', TEAM_FACT, '???', 'Another new fact', TEAM_FACT];
    const found = await probe.candidatesOfEach(principal, texts);
    expect(found.map((near) => near.map((c) => c.id))).toEqual([[], [7], [], [], [7]]);
    expect(found[1][0].similarity).toBeCloseTo(0.99, 5);
    expect(log.prepared).toEqual(texts);
    expect(log.maxInFlight).toBe(texts.length);
    // One look for teammates, one transaction for every search (not two per text).
    expect(log.transactions).toBe(2);
    expect(log.searches).toBe(4);
    // The searches' transaction plans its statements once per connection, as recall's does
    // (re-planning the vector search under the memories policies cost ten times running it).
    expect(log.options[1]).toEqual({ genericPlans: true });
  });

  it('embeds nothing when no teammate shares a team memory', async () => {
    const { finder: probe, log } = finder({ teammates: false });
    expect(await probe.candidatesOfEach(principal, ['one', 'two'])).toEqual([[], []]);
    expect(log.prepared).toEqual([]);
    expect(log.transactions).toBe(1);
  });

  it('does not ask again when the writer knows that teammates share team memories: one transaction', async () => {
    const { finder: probe, log } = finder({ teammates: false });
    const found = await probe.candidatesOfEach(principal, [TEAM_FACT], { teammates: true });
    expect(found.map((near) => near.map((c) => c.id))).toEqual([[7]]);
    expect(log.transactions).toBe(1);
  });

  it('answers one text as candidates() did', async () => {
    const { finder: probe } = finder({ teammates: true });
    expect((await probe.candidates(principal, TEAM_FACT)).map((c) => c.id)).toEqual([7]);
    expect(await probe.candidatesOfEach(principal, [])).toEqual([]);
  });
});
