import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from 'pg';
import { loadConfig } from '@app/config';
import { startApi, type StartedApi } from '../../apps/api/src/main';
import { spyOnQueries, type SentQuery } from '@app/testing';
import { teamFixture } from '../support/e2e-env';

/** A transaction's statements in order, and how many times its connection waited for an answer. */
type Transaction = string[] & { roundTrips: number };

/** The first word of each statement ("BEGIN; SELECT set_config(…)" is one round trip: "BEGIN"). */
const verbs = (statements: readonly string[]) => statements.map((sql) => sql.trim().split(/[\s;(]/)[0]);

/**
 * Every query the API's `pg` clients send while one request runs, cut into transactions per
 * connection. A write is one short transaction with a fixed number of round trips: this keeps
 * bookkeeping statements (and per-request lookups such as key verification) from creeping back.
 */
describe('round trips per write through the REST API', () => {
  const team = teamFixture();
  const headers = { authorization: `Bearer ${team.keys.alice}`, 'content-type': 'application/json' };
  let restore: () => void;
  let sent: SentQuery[] | null = null;
  let api: StartedApi;

  beforeAll(async () => {
    restore = spyOnQueries((query) => sent?.push(query));
    api = await startApi(loadConfig({ ...team.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'error' }));
    // The first request verifies the key and records its use; later ones find it in the cache.
    await store('warm-up');
  });
  afterAll(async () => {
    restore?.();
    await api?.stop();
  });

  async function store(content: string, extra: Record<string, string> = {}): Promise<number> {
    const response = await fetch(`${api.url}/api/memories`, {
      method: 'POST',
      headers: { ...headers, ...extra },
      body: JSON.stringify({ content, tags: 'a,b' }),
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { id: number }).id;
  }

  /** The transactions `request` ran, each as its statements; the relay's (system) ones set apart. */
  async function transactionsOf(request: () => Promise<unknown>) {
    sent = [];
    await request();
    const recorded = sent;
    sent = null;
    const open = new Map<Client, Transaction>();
    const done: Transaction[] = [];
    for (const { client, sql, behind } of recorded) {
      if (sql.startsWith('BEGIN')) open.set(client, Object.assign([], { roundTrips: 0 }));
      // The tail of a transaction that began before the request (the relay after the previous one).
      const current = open.get(client);
      if (!current) continue;
      current.push(sql);
      if (!behind) current.roundTrips++;
      if (sql === 'COMMIT' || sql === 'ROLLBACK') {
        done.push(current);
        open.delete(client);
      }
    }
    const isSystem = (statements: string[]) => statements[0].includes(`'app.system'`);
    return { user: done.filter((t) => !isSystem(t)), system: done.filter(isSystem) };
  }

  it('a store is one transaction of one round trip: BEGIN with its settings, the row with its bookkeeping, COMMIT', async () => {
    const { user, system } = await transactionsOf(() => store(`a fact ${Date.now()}`));
    expect(user).toHaveLength(1);
    // The only system work is the outbox relay woken by the commit: the key came from the cache.
    for (const statements of system) expect(statements.join('\n')).toContain('FROM outbox');
    const [statements] = user;
    expect(verbs(statements)).toEqual(['BEGIN', 'WITH', 'COMMIT']);
    expect(statements.roundTrips).toBe(1);
    for (const table of ['memories', 'memory_index_state', 'outbox', 'audit_log']) {
      expect(statements[1]).toContain(`INSERT INTO ${table}`);
    }
  });

  it('an Idempotency-Key adds its claim and its recorded response, nothing else', async () => {
    const { user } = await transactionsOf(() =>
      store(`an idempotent fact ${Date.now()}`, { 'idempotency-key': `k-${Date.now()}` }),
    );
    expect(user).toHaveLength(1);
    expect(verbs(user[0])).toEqual(['BEGIN', 'INSERT', 'WITH', 'UPDATE', 'COMMIT']);
    // BEGIN goes with the claim; the recorded response is written after the row, then COMMIT.
    expect(user[0].roundTrips).toBe(4);
  });

  it('an update of the content: its checks, the row, then its bookkeeping in one statement', async () => {
    const id = await store(`to be changed ${Date.now()}`);
    const { user } = await transactionsOf(async () => {
      const response = await fetch(`${api.url}/api/memories/${id}`, {
        method: 'PUT',
        headers,
        body: JSON.stringify({ content: `changed ${Date.now()}` }),
      });
      expect(response.status).toBe(200);
    });
    expect(user).toHaveLength(1);
    // The caller's access, the row locked, the row as it was, the duplicate check, the row as it was
    // kept as a version, the update.
    expect(verbs(user[0])).toEqual([
      'BEGIN',
      'SELECT',
      'SELECT',
      'SELECT',
      'SELECT',
      'INSERT',
      'UPDATE',
      'WITH',
      'COMMIT',
    ]);
    // BEGIN goes with the first check; COMMIT waits for the bookkeeping (nothing marks it last).
    expect(user[0].roundTrips).toBe(8);
  });
});
