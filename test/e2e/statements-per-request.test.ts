import { AsyncLocalStorage } from 'node:async_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@app/config';
import { startApi, type StartedApi } from '../../apps/api/src/main';
import { spyOnQueries } from '@app/testing';
import { teamFixture } from '../support/e2e-env';

/**
 * The most SQL statements (every `query` a pooled connection sends: BEGIN with the RLS settings,
 * each statement, COMMIT) one steady-state request may cost; what triggers do inside a statement is
 * not counted. These are today's counts: store 3 (opening, the memory with its index state, outbox
 * and audit rows in one statement, COMMIT), a team store 4 (the lock on the tenant and text before
 * the row's statement); recall 4 (opening, the delta that brings the text and vector
 * indexes up to date — both legs, and the ranking facts and thread neighbours, then come from the
 * process —, served rows with links, COMMIT; a served memory with a newer version costs a second
 * transaction that walks its chain), and 3 for a recall on a fresh index (RECALL_INDEX_FRESH_MS:
 * opening, served rows, COMMIT — nothing before the rows); list 4
 * (opening, the page, the total, COMMIT; a page that is not full needs no count); get 3 (opening,
 * the memory with its links, COMMIT).
 * Each is a ceiling, so a change that adds statements to the request path fails here; lower them as
 * the paths get cheaper.
 */
const CEILING = {
  store: 3,
  'team store': 4,
  recall: 4,
  'fresh recall': 3,
  list: 4,
  get: 3,
  'code event': 3,
} as const;

/**
 * The most round trips: times a connection waited for an answer before sending more. The opening
 * goes with the first statement, and COMMIT with a statement marked last: store 1 (the opening, the
 * memory with its bookkeeping, and COMMIT), recall 2 (the opening with the delta; the served rows
 * with COMMIT), a recall on a fresh index 1, list 3 (COMMIT waits for the page's reads), get 1, a code
 * event 1 (the opening, the event with its job, and COMMIT). A team memory of a caller whose teammates
 * share no team memory: 1 as well (the lock on the text goes with its statement, which asks under it
 * whether teammates share team memories); with teammates sharing, the meaning probe's transaction
 * comes first and the write is 1 round trip as well (its statement checks the text and the probe's
 * candidates), and a teammate's duplicate is answered by the store in steps.
 */
const ROUND_TRIPS = {
  store: 1,
  'team store': 1,
  recall: 2,
  'fresh recall': 1,
  list: 3,
  get: 1,
  'code event': 1,
} as const;

interface Sent {
  readonly sql: string;
  /** Sent while another statement of the same connection was still waiting for its answer. */
  readonly behind: boolean;
}

/** The statements sent on behalf of the request running in this async context. */
const current = new AsyncLocalStorage<Sent[]>();

/**
 * Counts through the `pg` driver the API's pool uses. The request is injected into Fastify from
 * inside `current.run`, so only queries made on its behalf are counted: the outbox relay, the
 * scheduler and the health checks run in contexts of their own.
 */
function countStatements(): () => void {
  return spyOnQueries(({ sql, behind }) => current.getStore()?.push({ sql, behind }));
}

/**
 * Drops the API key lookup's transaction: verified keys are cached for 5 s, so whether a request pays
 * for one depends on the clock; it is the same transaction for every route.
 */
function withoutKeyLookup(statements: readonly Sent[]): Sent[] {
  const kept: Sent[] = [];
  let open: Sent[] = [];
  for (const statement of statements) {
    open.push(statement);
    if (!/^\s*(COMMIT|ROLLBACK)\b/i.test(statement.sql)) continue;
    if (!open.some((s) => /\bapi_keys\b/.test(s.sql))) kept.push(...open);
    open = [];
  }
  return [...kept, ...open];
}

type RequestKind = keyof typeof CEILING;

/**
 * The ceilings of the given requests on an API started with `env` on top of a fresh team's. With
 * quotas configured a store checks them inside its INSERT, so its ceiling is the same.
 */
const describeCeilings = (title: string, env: Record<string, string>, kinds: readonly RequestKind[]) =>
  describe(title, () => {
    const team = teamFixture(env);
    let api: StartedApi;
    let restore: () => void;
    let n = 0;

    const send = async (method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>) => {
      const statements: Sent[] = [];
      // Awaited inside `run`: inject dispatches lazily, when its answer is first awaited.
      const response = await current.run(
        statements,
        async () =>
          await api.app
            .getHttpAdapter()
            .getInstance()
            .inject({
              method,
              url,
              headers: { authorization: `Bearer ${team.keys.alice}` },
              payload,
            }),
      );
      expect(response.statusCode, response.body).toBeLessThan(300);
      return withoutKeyLookup(statements);
    };
    const store = () =>
      send('POST', '/api/memories', {
        content: `Deploys of service ${++n} go through the blue-green pipeline after the canary passes`,
        tags: 'deploy,ci',
        importance: 0.6,
      });
    const teamStore = () =>
      send('POST', '/api/memories', {
        content: `Releases of service ${++n} are tagged from main after the smoke tests pass`,
        tags: 'release',
        visibility: 'team',
      });
    const recall = () =>
      send('POST', '/api/memories/recall', {
        context: `how do deploys of service ${++n} roll out`,
        limit: 10,
      });
    // The same plain words twice: the first teaches them and refreshes the index, the second is counted.
    const freshRecall = async () => {
      const body = { context: 'how do deploys roll out after the canary', limit: 10 };
      await send('POST', '/api/memories/recall', body);
      return send('POST', '/api/memories/recall', body);
    };
    const list = () => send('GET', '/api/memories?limit=50');
    let stored = 0;
    const get = () => send('GET', `/api/memories/${stored}`);

    beforeAll(async () => {
      restore = countStatements();
      api = await startApi(loadConfig({ ...team.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'error' }));
      // Some memories to find and list; the first request of each kind also fills per-process caches
      // (the key lookup, prepared plans), which a steady-state request does not pay again.
      for (let i = 0; i < 5; i++) await store();
      await teamStore();
      // The first recall loads the tenant's text index, then its vectors; the next ones use both.
      await recall();
      await new Promise((resolve) => setTimeout(resolve, 300));
      await recall();
      await list();
      const page = await api.app
        .getHttpAdapter()
        .getInstance()
        .inject({
          method: 'GET',
          url: '/api/memories?limit=1',
          headers: { authorization: `Bearer ${team.keys.alice}` },
        });
      stored = (JSON.parse(page.body) as { memories: Array<{ id: number }> }).memories[0].id;
      await get();
    });
    afterAll(async () => {
      await api?.stop();
      restore?.();
    });

    const codeEvent = () =>
      send('POST', '/api/code-events', {
        repo: 'github.com/acme/pay',
        changes: [{ path: `src/pay-${++n}.ts`, hash: 'a'.repeat(40) }],
      });
    const requests = {
      store,
      'team store': teamStore,
      recall,
      'fresh recall': freshRecall,
      list,
      get,
      'code event': codeEvent,
    };
    it.each(kinds)('a %s request stays within its statement and round-trip ceilings', async (name) => {
      const statements = await requests[name]();
      const shown = statements.map((s) => `${s.behind ? '(pipelined) ' : ''}${s.sql}`).join('\n---\n');
      expect(statements.length, shown).toBeGreaterThan(0);
      expect(statements.length, shown).toBeLessThanOrEqual(CEILING[name]);
      expect(statements.filter((s) => !s.behind).length, shown).toBeLessThanOrEqual(ROUND_TRIPS[name]);
    });
  });

describeCeilings('SQL statements per REST request (in-process API, real Postgres)', {}, [
  'store',
  'team store',
  'recall',
  'list',
  'get',
  'code event',
]);
describeCeilings(
  'SQL statements per store with tenant quotas configured',
  { QUOTA_MAX_MEMORIES: '1000000', QUOTA_MAX_MEMORY_BYTES: '1000000000', QUOTA_MAX_SESSIONS_PER_DAY: '1000' },
  ['store'],
);
describeCeilings('SQL statements per recall on a fresh index', { RECALL_INDEX_FRESH_MS: '1000' }, [
  'fresh recall',
]);
