import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type LinkType } from '@app/memories';
import { MemoryLinkRepository } from '@app/memories/testing';
import { DEFAULT_RECALL_OPTIONS, type RecallMemoriesUseCase, type RecallSort } from '@app/recall';
import { type Principal } from '@app/tenancy';
import {
  createTestTenant,
  memberPrincipal,
  openTestDatabase,
  spyOnQueries,
  type TestDatabase,
} from '@app/testing';
import {
  teamMemoryStore,
  textLegOf,
  textLegRecall,
  type TextLegKind,
} from '../../../test/support/text-recall';

const QUERY = 'canary rollback runbook';

/**
 * Recall ranks its candidates on a few facts and reads full rows and links only for what it
 * serves: a recall with more candidates than `limit` must still serve the top of the ranking,
 * superseded hits as their newest version (with that version's row), and only visible links.
 */
describe.each<TextLegKind>(['postgres', 'index'])(
  'recall serving the top of many candidates (%s)',
  (kind) => {
    let db: TestDatabase;
    let recall: RecallMemoriesUseCase;
    let alice: Principal;
    let bob: Principal;
    const ids: number[] = [];

    let store: ReturnType<typeof teamMemoryStore>;
    const link = (srcId: number, dstId: number, linkType: LinkType, who = alice) =>
      db.tx.inTenant(who, (tx) => new MemoryLinkRepository().insert(who, tx, { srcId, dstId, linkType }));
    // One clock for every recall, so that recency (and so each rank) compares exactly.
    const now = new Date(Date.now() + 3_600_000);
    const ask = (limit: number, options: { sortBy?: RecallSort; includeSuperseded?: boolean } = {}) =>
      recall.execute(
        alice,
        {
          context: QUERY,
          expandedQuery: '',
          sortBy: options.sortBy ?? 'relevance',
          limit,
          includeSuperseded: options.includeSuperseded,
          legs: { text: true, vector: false },
        },
        now,
      );

    beforeAll(async () => {
      db = await openTestDatabase(inject('databaseUrl'), 4);
      const textLeg = textLegOf(db.tx, kind);
      recall = textLegRecall(db.tx, DEFAULT_RECALL_OPTIONS, textLeg.leg);
      store = teamMemoryStore(db.tx);
      const tenant = await createTestTenant(db, 'serving');
      alice = await memberPrincipal(tenant, 'alice');
      bob = await memberPrincipal(tenant, 'bob');
      // Twelve matches of differing strength and importance: more candidates than any limit below.
      for (let i = 0; i < 12; i++) {
        const words = ['canary rollback runbook', 'canary rollback', 'rollback runbook', 'canary'][i % 4];
        ids.push(
          await store(i % 2 === 0 ? alice : bob, `${words} for service ${i}`, { importance: (i + 1) / 13 }),
        );
      }
      expect(await textLeg.warm(alice)).toBe(true);
    });
    afterAll(async () => db.close());

    it('serves exactly the top of the full ranking, for every sort', async () => {
      // With the index held, ranking facts come from it: Postgres reads the served rows only.
      let describes = 0;
      const stop = spyOnQueries(({ sql }) => (describes += sql.includes('hits AS MATERIALIZED') ? 1 : 0));
      try {
        await ask(12);
      } finally {
        stop();
      }
      expect(describes).toBe(kind === 'index' ? 0 : 1);
      for (const sortBy of ['relevance', 'importance', 'recency'] as const) {
        const all = await ask(12, { sortBy });
        expect(
          all.map((r) => r.memory.id).sort((a, b) => a - b),
          sortBy,
        ).toEqual([...ids].sort((a, b) => a - b));
        const top = await ask(4, { sortBy });
        expect(
          top.map((r) => r.memory.id),
          sortBy,
        ).toEqual(all.slice(0, 4).map((r) => r.memory.id));
        expect(top, sortBy).toEqual(all.slice(0, 4));
      }
    });

    it('serves a superseded hit as its head, in its place, deduplicated, still `limit` memories', async () => {
      const order = (await ask(12)).map((r) => r.memory.id);
      const [a, b, c, d] = order;
      // The head of `a` matches no query word: only the redirect can bring it in.
      const newer = await store(alice, 'Deploys now go through the release train, see the platform docs');
      const hidden = await store(bob, 'Notes bob keeps to himself', { visibility: 'private' });
      await link(newer, a, 'supersedes');
      await link(c, b, 'supersedes');
      await link(d, newer, 'see-also');
      await link(d, hidden, 'see-also', bob);

      const served = await ask(3);
      expect(served[0].explanation.textSource).toBe(kind === 'index' ? 'index' : 'sql:disabled');
      expect(served.map((r) => [r.memory.id, r.redirectedFrom])).toEqual([
        [newer, a],
        [c, b],
        [d, undefined],
      ]);
      // The head's own row, carrying the rank of the hit it stands for.
      const all = await ask(12, { includeSuperseded: true });
      expect(served[0].memory.content).toBe(
        'Deploys now go through the release train, see the platform docs',
      );
      expect(served[0].rank).toBe(all.find((r) => r.memory.id === a)?.rank);
      expect(served[0].links.map((l) => [l.srcId, l.dstId, l.linkType])).toEqual([
        [newer, a, 'supersedes'],
        [d, newer, 'see-also'],
      ]);
      // bob's private memory stays out of d's links.
      expect(served[2].links.map((l) => [l.srcId, l.dstId])).toEqual([[d, newer]]);

      // History asked for: the hits as they are.
      const history = await ask(3, { includeSuperseded: true });
      expect(history.map((r) => r.memory.id)).toEqual([a, b, c]);
      expect(history.every((r) => r.redirectedFrom === undefined)).toBe(true);
    });
  },
);
