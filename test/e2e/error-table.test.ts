import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '@app/config';
import { contentHash } from '@app/memories';
import { FakeVault, FaultProxy } from '@app/testing';
import { startApi, type StartedApi } from '../../apps/api/src/main';
import { teamFixture, type TeamFixture } from '../support/e2e-env';
import { client, type JsonResponse } from '../support/http-client';
import { ROOT } from '../support/processes';
import { racingCommit } from '../support/racing-commit';
import { createScratchDatabase, type ScratchDatabase } from '../support/scratch-database';
import { waitFor } from '../support/wait-for';

/** One row of docs/api.md "Limits and errors". */
interface DocumentedError {
  readonly input: string;
  readonly status: number;
  /** Headers the status cell names (`+ \`Retry-After\``), with the value's start when it gives one. */
  readonly headers: ReadonlyArray<{ name: string; startsWith: string }>;
  readonly codes: readonly string[];
  /** A detail the code cell quotes (`no_fields_to_update` ("No fields to update")). */
  readonly detail?: string;
}

function documentedErrors(): DocumentedError[] {
  const doc = readFileSync(resolve(ROOT, 'docs/api.md'), 'utf8');
  const lines = doc.slice(doc.indexOf('## Limits and errors')).split('\n');
  const first = lines.findIndex((line) => line.startsWith('|'));
  const end = lines.findIndex((line, i) => i > first && !line.startsWith('|'));
  const table = lines.slice(first + 2, end); // after the header and separator rows
  return table.map((row) => {
    const [input, statusCell, codeCell] = row
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
    const headers = [...statusCell.matchAll(/`([A-Za-z-]+)(?::\s*([^`]*))?`/g)].map((m) => ({
      name: m[1],
      startsWith: m[2] ?? '',
    }));
    return {
      input,
      status: Number(/^\d{3}/.exec(statusCell)?.[0]),
      headers,
      codes: [...codeCell.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]),
      detail: /\("([^"]+)"\)/.exec(codeCell)?.[1],
    };
  });
}

type Http = ReturnType<typeof client>;

/** The request that produces one documented error; `row` picks the table row by its input text. */
interface Scenario {
  readonly row: RegExp;
  readonly code: string;
  run(): Promise<JsonResponse<{ detail?: unknown; code?: unknown }>>;
}

/** A raw request (body as given, any content type). */
async function send(
  url: string,
  init: { method: string; key?: string; type?: string; body?: string },
): Promise<JsonResponse<{ detail?: unknown; code?: unknown }>> {
  const headers: Record<string, string> = {};
  if (init.key) headers.authorization = `Bearer ${init.key}`;
  if (init.type) headers['content-type'] = init.type;
  const res = await fetch(url, { method: init.method, headers, body: init.body });
  const text = await res.text();
  let body: { detail?: unknown; code?: unknown } = {};
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    /* asserted below */
  }
  return { status: res.status, body, headers: res.headers };
}

/** Holds a row lock on one memory (superuser connection) while `work` runs. */
async function whileRowLocked<T>(databaseUrl: string, memoryId: number, work: () => Promise<T>): Promise<T> {
  const holder = new Client({ connectionString: databaseUrl });
  await holder.connect();
  try {
    await holder.query('BEGIN');
    await holder.query('SELECT id FROM memories WHERE id = $1 FOR UPDATE', [memoryId]);
    return await work();
  } finally {
    await holder.query('ROLLBACK').catch(() => undefined);
    await holder.end();
  }
}

/** Terminates the backend waiting for a lock (`whileRowLocked`), as a Postgres restart ends every session. */
async function terminateLockWaiter(databaseUrl: string): Promise<void> {
  const admin = new Client({ connectionString: databaseUrl });
  await admin.connect();
  try {
    await waitFor('a request waiting for the row lock', async () => {
      const { rowCount } = await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
      );
      return rowCount ? true : undefined;
    });
  } finally {
    await admin.end();
  }
}

const start = (env: Record<string, string>) =>
  startApi(loadConfig({ ...env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' }));

describe('every error docs/api.md lists answers exactly its status and code', () => {
  const vault = new FakeVault();
  // The degraded app's link to Postgres, which a scenario blackholes.
  let link: FaultProxy;
  // The main app: small limits, no secret store.
  const team = teamFixture({
    MAX_IMPORT_BATCH: '2',
    BODY_LIMIT_BYTES: '2048',
    TRANSCRIPT_IMPORT_MAX_BYTES: '1024',
    MAX_CONTENT_BYTES: '256',
  });
  let limitedTeam: TeamFixture;
  let degradedTeam: TeamFixture;
  let busyTeam: TeamFixture;
  let quotaTeam: TeamFixture;
  let scratch: ScratchDatabase;
  const apps: Record<'main' | 'limited' | 'degraded' | 'busy' | 'quota', StartedApi | undefined> = {
    main: undefined,
    limited: undefined,
    degraded: undefined,
    busy: undefined,
    quota: undefined,
  };
  const url = (name: keyof typeof apps) => (apps[name] as StartedApi).url;

  beforeAll(async () => {
    const address = await vault.start();
    link = await FaultProxy.start({ target: new URL(inject('databaseUrl')).host });
    limitedTeam = teamFixture({ RATE_LIMIT_PER_MINUTE: '2' });
    // Statement timeout, an unreachable Postgres and a sealed Vault.
    degradedTeam = teamFixture({
      DATABASE_URL: link.rewrite(inject('databaseUrl')),
      DATABASE_STATEMENT_TIMEOUT_MS: '300',
      VAULT_ADDR: address,
      VAULT_TOKEN: vault.rootToken,
      VAULT_TIMEOUT_MS: '1000',
    });
    // A database whose sessions give up waiting for a lock after 200 ms (lock_timeout).
    scratch = await createScratchDatabase(inject('adminDatabaseUrl'), 'error_table_busy');
    const admin = new Client({ connectionString: inject('adminDatabaseUrl') });
    await admin.connect();
    await admin.query(`ALTER DATABASE ${new URL(scratch.url).pathname.slice(1)} SET lock_timeout = '200ms'`);
    await admin.end();
    busyTeam = teamFixture({ DATABASE_URL: scratch.url });
    apps.main = await start(team.env);
    apps.limited = await start(limitedTeam.env);
    apps.degraded = await start(degradedTeam.env);
    apps.busy = await start(busyTeam.env);
    // A tenant allowed one memory of at most 100 bytes and one session a day.
    quotaTeam = teamFixture({
      QUOTA_MAX_MEMORIES: '1',
      QUOTA_MAX_MEMORY_BYTES: '100',
      QUOTA_MAX_SESSIONS_PER_DAY: '1',
    });
    apps.quota = await start(quotaTeam.env);
  });

  afterAll(async () => {
    for (const app of Object.values(apps)) await app?.stop();
    await scratch?.drop();
    await vault.stop();
    await link?.close();
  });

  const alice = (): Http => client(url('main'), team.keys.alice);
  const bob = (): Http => client(url('main'), team.keys.bob);
  const store = async (http: Http, content: string): Promise<number> => {
    const res = await http.post<{ id: number }>('/api/memories', { content });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.id;
  };
  const unique = (what: string) => `${what} ${Math.random().toString(36).slice(2)}`;

  const scenarios: Scenario[] = [
    {
      row: /missing\/invalid key/,
      code: 'unauthenticated',
      run: () => client(url('main')).get('/api/memories'),
    },
    { row: /without the route's scope/, code: 'forbidden', run: () => alice().get('/api/admin/keys') },
    {
      row: /^malformed JSON/,
      code: 'malformed_json',
      run: () => alice().post('/api/memories', '{"content": "unterminated'),
    },
    {
      row: /X-Memory-Consistency/,
      code: 'invalid_consistency_token',
      run: () => alice().get('/api/memories', { 'x-memory-consistency': 'lsn:not-a-position' }),
    },
    {
      row: /__proto__/,
      code: 'forbidden_property',
      run: () => alice().post('/api/memories', '{"content":"x","__proto__":{"admin":true}}'),
    },
    {
      row: /NUL bytes/,
      code: 'invalid_characters',
      run: () => alice().post('/api/memories', { content: 'a\u0000b' }),
    },
    {
      row: /malformed percent-encoding/,
      code: 'invalid_url',
      run: () => alice().get('/api/memories/%ED%A0%80'),
    },
    {
      row: /a path parameter over 100 characters/,
      code: 'invalid_url',
      run: () => alice().get(`/api/memories/${'1'.repeat(101)}`),
    },
    { row: /bad `limit`/, code: 'validation_failed', run: () => alice().get('/api/memories?limit=-1') },
    { row: /not a positive integer/, code: 'validation_failed', run: () => alice().get('/api/memories/abc') },
    {
      row: /`PUT` without any known field/,
      code: 'no_fields_to_update',
      run: async () => alice().put(`/api/memories/${await store(alice(), unique('put target'))}`, {}),
    },
    {
      row: /import larger than/,
      code: 'batch_too_large',
      run: () =>
        alice().post('/api/memories/import', [{ content: 'one' }, { content: 'two' }, { content: 'three' }]),
    },
    {
      row: /unknown or another user's id/,
      code: 'memory_not_found',
      run: async () => bob().get(`/api/memories/${await store(alice(), unique('private to alice'))}`),
    },
    {
      row: /a version the memory does not have/,
      code: 'memory_version_not_found',
      run: async () =>
        alice().get(`/api/memories/${await store(alice(), unique('never edited'))}/versions/1`),
    },
    {
      row: /teammate's session/,
      code: 'session_not_writable',
      run: async () => {
        const admin = client(url('main'), team.keys.admin);
        expect(
          (await admin.request('PATCH', '/api/admin/settings', { team_session_visibility: true })).status,
        ).toBe(200);
        const session = await bob().post<{ id: string }>('/api/sessions', { agent: 'claude-code' });
        return alice().request('PATCH', `/api/sessions/${session.body.id}`, { summary: 'not mine' });
      },
    },
    {
      row: /startup context `budget`/,
      code: 'startup_budget_out_of_range',
      run: () => alice().get('/api/context/startup?budget=10'),
    },
    {
      row: /accept or reject of a memory that is not a proposal/,
      code: 'not_a_proposal',
      run: async () => alice().post(`/api/memories/${await store(alice(), unique('in force'))}/accept`, {}),
    },
    {
      row: /verify of a memory without anchors/,
      code: 'memory_not_anchored',
      run: async () => alice().post(`/api/memories/${await store(alice(), unique('no code'))}/verify`, {}),
    },
    {
      row: /a code event id your team does not have/,
      code: 'code_event_not_found',
      run: () => alice().get('/api/code-events/999999999'),
    },
    {
      row: /purge before delete/,
      code: 'memory_not_deleted',
      run: async () => alice().delete(`/api/memories/${await store(alice(), unique('still live'))}/purge`),
    },
    {
      row: /duplicating another live memory/,
      code: 'duplicate_content',
      run: async () => {
        const first = unique('the original');
        await store(alice(), first);
        return alice().put(`/api/memories/${await store(alice(), unique('the other'))}`, { content: first });
      },
    },
    {
      row: /met a concurrent change/,
      code: 'write_conflict',
      run: async () => {
        const text = unique('written twice at once');
        const id = await store(alice(), unique('about to become a copy'));
        // Alice's own copy of the text, committed while her edit waits on the unique index.
        return racingCommit(
          inject('databaseUrl'),
          (db) =>
            db.query(
              `INSERT INTO memories (tenant_id, owner_id, content, content_hash)
               SELECT u.tenant_id, u.id, $3, $4 FROM users u JOIN tenants t ON t.id = u.tenant_id
                WHERE t.slug = $1 AND u.username = $2`,
              [team.tenant, 'alice', text, contentHash(text)],
            ),
          () => alice().put(`/api/memories/${id}`, { content: text }),
        );
      },
    },
    {
      row: /a value the database cannot store/,
      code: 'invalid_value',
      run: () =>
        alice().post('/api/memories/import', [
          { content: unique('said in year zero'), created_at: '0000-01-01T00:00:00Z' },
        ]),
    },
    {
      row: /a link to itself/,
      code: 'link_to_self',
      run: async () => {
        const id = await store(alice(), unique('self'));
        return alice().post(`/api/memories/${id}/links`, { target_id: id, link_type: 'see-also' });
      },
    },
    {
      row: /a link to itself/,
      code: 'supersedes_cycle',
      run: async () => {
        const [a, b] = [await store(alice(), unique('newer')), await store(alice(), unique('older'))];
        const first = await alice().post(`/api/memories/${a}/links`, {
          target_id: b,
          link_type: 'supersedes',
        });
        expect(first.status).toBe(200);
        return alice().post(`/api/memories/${b}/links`, { target_id: a, link_type: 'supersedes' });
      },
    },
    {
      row: /the same link/,
      code: 'link_exists',
      run: async () => {
        const [a, b] = [await store(alice(), unique('one')), await store(alice(), unique('two'))];
        await alice().post(`/api/memories/${a}/links`, { target_id: b, link_type: 'see-also' });
        return alice().post(`/api/memories/${a}/links`, { target_id: b, link_type: 'see-also' });
      },
    },
    {
      row: /removing a link that is not there/,
      code: 'link_not_found',
      run: async () => {
        const [a, b] = [await store(alice(), unique('three')), await store(alice(), unique('four'))];
        return alice().delete(`/api/memories/${a}/links/${b}/part-of`);
      },
    },
    {
      row: /body over `BODY_LIMIT_BYTES`/,
      code: 'body_too_large',
      run: () => alice().post('/api/memories', { content: 'x'.repeat(4096) }),
    },
    {
      row: /body over `BODY_LIMIT_BYTES`/,
      code: 'body_too_large',
      run: () =>
        send(`${url('main')}/api/import/claude-code`, {
          method: 'POST',
          key: team.keys.alice,
          type: 'application/x-ndjson',
          body: `${JSON.stringify({ type: 'user', sessionId: 's', message: { content: 'x'.repeat(3000) } })}\n`,
        }),
    },
    {
      row: /a body type the route does not read/,
      code: 'unsupported_media_type',
      run: () =>
        send(`${url('main')}/api/memories`, {
          method: 'POST',
          key: team.keys.alice,
          type: 'application/xml',
          body: '<memory>x</memory>',
        }),
    },
    {
      row: /a body type the route does not read/,
      code: 'unsupported_media_type',
      run: () =>
        send(`${url('main')}/api/import/claude-code`, {
          method: 'POST',
          key: team.keys.alice,
          type: 'text/plain',
          body: 'hello',
        }),
    },
    {
      row: /without any Claude Code entry/,
      code: 'not_a_transcript',
      run: () =>
        send(`${url('main')}/api/import/claude-code`, {
          method: 'POST',
          key: team.keys.alice,
          type: 'application/x-ndjson',
          body: '{"hello":"world"}\n',
        }),
    },
    {
      row: /content over `MAX_CONTENT_BYTES`/,
      code: 'content_too_large',
      run: () => alice().post('/api/memories', { content: 'é'.repeat(200) }),
    },
    {
      row: /any other contract violation/,
      code: 'validation_failed',
      run: () => alice().post('/api/memories', { content: 'x', importance: 7 }),
    },
    {
      row: /an identity field/,
      code: 'validation_failed',
      run: () => alice().post('/api/memories', { content: 'x', user_id: 'bob' }),
    },
    {
      row: /rate limit/,
      code: 'rate_limited',
      run: async () => {
        const limited = client(url('limited'), limitedTeam.keys.alice);
        for (let i = 0; i < 50; i++) {
          const res = await limited.get('/api/auth-check');
          if (res.status !== 200) return res;
        }
        throw new Error('50 requests in a row were not rate limited at RATE_LIMIT_PER_MINUTE=2');
      },
    },
    {
      row: /content bytes quota/,
      code: 'storage_quota_exceeded',
      run: () =>
        client(url('quota'), quotaTeam.keys.alice).post('/api/memories', { content: 'x'.repeat(150) }),
    },
    {
      row: /memories quota/,
      code: 'quota_exceeded',
      run: async () => {
        const http = client(url('quota'), quotaTeam.keys.alice);
        await store(http, 'the one memory this tenant may keep');
        return http.post('/api/memories', { content: 'one too many' });
      },
    },
    {
      row: /sessions-per-day quota/,
      code: 'quota_exceeded',
      run: async () => {
        const http = client(url('quota'), quotaTeam.keys.bob);
        const first = await http.post('/api/sessions', { agent: 'claude-code' });
        expect(first.status, JSON.stringify(first.body)).toBeLessThan(300);
        return http.post('/api/sessions', { agent: 'claude-code' });
      },
    },
    {
      row: /statement timeout/,
      code: 'statement_timeout',
      run: async () => {
        const http = client(url('degraded'), degradedTeam.keys.alice);
        const id = await store(http, unique('locked by another transaction'));
        return whileRowLocked(inject('databaseUrl'), id, () =>
          http.put(`/api/memories/${id}`, { importance: 0.9 }),
        );
      },
    },
    {
      row: /a lock timeout/,
      code: 'database_busy',
      run: async () => {
        const http = client(url('busy'), busyTeam.keys.alice);
        const id = await store(http, unique('locked by another transaction'));
        return whileRowLocked(scratch.url, id, () => http.put(`/api/memories/${id}`, { importance: 0.9 }));
      },
    },
    {
      row: /restarting, down or unreachable/,
      code: 'database_unavailable',
      run: async () => {
        const http = alice();
        const id = await store(http, unique('cut off by a restart'));
        return whileRowLocked(inject('databaseUrl'), id, async () => {
          const pending = http.put(`/api/memories/${id}`, { importance: 0.9 });
          await terminateLockWaiter(inject('databaseUrl'));
          return pending;
        });
      },
    },
    {
      row: /restarting, down or unreachable/,
      code: 'database_unavailable',
      run: async () => {
        link.set({ mode: 'blackhole' });
        try {
          return await client(url('degraded'), degradedTeam.keys.alice).get('/api/memories');
        } finally {
          link.heal();
        }
      },
    },
    {
      row: /sealed or unreachable/,
      code: 'secret_store_unavailable',
      run: async () => {
        vault.faults.sealed = true;
        try {
          return await client(url('degraded'), degradedTeam.keys.alice).post('/api/memories', {
            content: 'the vpn pin',
            force_sensitive: true,
          });
        } finally {
          vault.faults.sealed = false;
        }
      },
    },
    {
      row: /no secret store is configured/,
      code: 'secret_store_unavailable',
      run: () => alice().post('/api/memories', { content: 'the vpn pin', force_sensitive: true }),
    },
  ];

  const rows = documentedErrors();

  it('reads the table: every row has a status and at least one code, and every row has a scenario', () => {
    expect(rows.length).toBeGreaterThanOrEqual(25);
    for (const row of rows) {
      expect(row.status, row.input).toBeGreaterThanOrEqual(400);
      expect(row.codes.length, row.input).toBeGreaterThan(0);
      for (const code of row.codes) {
        const covered = scenarios.some((s) => s.code === code && s.row.test(row.input));
        expect(covered, `no scenario for "${row.input}" → ${code}`).toBe(true);
      }
    }
    // And no scenario for a row the docs no longer have.
    for (const scenario of scenarios) {
      const row = rows.find((r) => scenario.row.test(r.input) && r.codes.includes(scenario.code));
      expect(row, `${scenario.row} → ${scenario.code}`).toBeDefined();
    }
  });

  it.each(scenarios.map((scenario, index) => [`${index + 1}: ${scenario.code}`, scenario] as const))(
    '%s',
    async (_, scenario) => {
      const row = rows.find((r) => scenario.row.test(r.input) && r.codes.includes(scenario.code));
      if (!row) throw new Error(`no documented row for ${scenario.row}`);
      const res = await scenario.run();
      expect({ status: res.status, code: res.body.code }, JSON.stringify(res.body)).toEqual({
        status: row.status,
        code: scenario.code,
      });
      expect(typeof res.body.detail, JSON.stringify(res.body)).toBe('string');
      expect((res.body.detail as string).length).toBeGreaterThan(0);
      if (row.detail) expect(res.body.detail).toBe(row.detail);
      for (const header of row.headers) {
        expect(res.headers.get(header.name), header.name).toMatch(new RegExp(`^${header.startsWith}`));
      }
      if (!row.headers.some((h) => h.name === 'Retry-After'))
        expect(res.headers.get('retry-after')).toBeNull();
    },
  );

  it('answers a /mcp body that is not JSON with a JSON-RPC parse error (-32700) and HTTP 400', async () => {
    const res = await fetch(`${url('main')}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${team.keys.alice}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{"jsonrpc":"2.0","method":"tools/list",',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: expect.stringMatching(/^Parse error/) },
    });
  });
});
