import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  acceptsString,
  arbitraryFor,
  ChaosTally,
  diffSnapshots,
  mutateBody,
  snapshotDatabase,
  type DatabaseSnapshot,
  type JsonSchema,
} from '@app/testing';
import { teamFixture } from '../support/e2e-env';
import { client } from '../support/http-client';
import {
  fillPath,
  inPool,
  isJsonError,
  operationsOf,
  sendRaw,
  type ApiOperation,
  type OpenApiDocument,
  type RawAnswer,
  type RawRequest,
} from '../support/openapi-operations';
import { startApiProcess, type ApiProcess } from '../support/processes';
import { createScratchDatabase, type ScratchDatabase } from '../support/scratch-database';
import { hostileMcpCalls, listTools, validToolCalls, type McpFuzz } from './input-fuzz-mcp';

/**
 * Input fuzz driven by the service's own OpenAPI document (served at /docs/json by the built API):
 * every operation gets bodies and parameters generated from its schemas, which must succeed or
 * answer a 4xx the operation documents; then hostile variants (wrong types, 1-5 MB strings, 10k
 * levels of nesting, prototype keys, NUL, lone surrogates, huge numbers, someone else's identity),
 * which must answer a 4xx with a JSON error body and change nothing in the database.
 */

const SCALE = Number(process.env.CHAOS_SCALE ?? 1);
const VALID_PER_OPERATION = Math.round(15 * SCALE);
/** Hostile variants are made from this many valid requests per operation. */
const MUTATION_ROUNDS = Math.round(2 * SCALE);
const VALID_PER_TOOL = Math.round(5 * SCALE);
const CONCURRENCY = 4;
const SEED = Number(process.env.CHAOS_SEED ?? Date.now() % 2 ** 31);
/** Text only bob's private memories hold: no answer to anyone else may contain it. */
const BOB_ONLY = 'zzbobonlymarker';

/**
 * Bookkeeping that moves on refused requests too: audit rows (a refused reveal is audited), key
 * last-use times, and the relay marking outbox rows dispatched (a new outbox row still counts).
 */
const VOLATILE = {
  skipTables: ['audit_log', 'schema_migrations'],
  skipColumns: {
    api_keys: ['last_used_at'],
    outbox: ['dispatched_at', 'attempts', 'last_error', 'available_at'],
  },
};

interface Pools {
  memoriesA: number[];
  memoriesB: number[];
  sessionsA: string[];
  sessionsB: string[];
  usersA: string[];
  usersB: string[];
  keysA: string[];
  keysB: string[];
}

describe('input fuzz from the OpenAPI document', () => {
  const tally = new ChaosTally('Input fuzz');
  let scratch: ScratchDatabase;
  let api: ApiProcess;
  let team: ReturnType<typeof teamFixture>;
  let db: Client;
  let doc: OpenApiDocument;
  let operations: ApiOperation[];
  let bobId: string;
  const pools: Pools = {
    memoriesA: [],
    memoriesB: [],
    sessionsA: [],
    sessionsB: [],
    usersA: [],
    usersB: [],
    keysA: [],
    keysB: [],
  };
  let bobsRowsBefore: DatabaseSnapshot;
  let seq = 0;
  const random = () =>
    fc.sample(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), {
      numRuns: 1,
      seed: SEED + seq++,
    })[0];

  beforeAll(async () => {
    scratch = await createScratchDatabase(inject('adminDatabaseUrl'), 'input_fuzz');
    team = teamFixture({
      DATABASE_URL: scratch.url,
      MEMORY_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      DEFAULT_VISIBILITY: 'private',
    });
    api = await startApiProcess(team.env);
    db = new Client({ connectionString: scratch.url });
    await db.connect();
    const res = await fetch(`${api.url}/docs/json`);
    doc = (await res.json()) as OpenApiDocument;
    operations = operationsOf(doc);

    const alice = client(api.url, team.keys.alice);
    const bob = client(api.url, team.keys.bob);
    const admin = client(api.url, team.keys.admin);
    for (let i = 0; i < 30; i++) {
      const stored = await alice.post<{ id: number }>('/api/memories', {
        content: `alice fixture ${i} about the deploy queue`,
        tags: ['fixture', `n${i % 3}`],
        visibility: i % 2 ? 'team' : 'private',
      });
      (i < 20 ? pools.memoriesA : pools.memoriesB).push(stored.body.id);
    }
    for (let i = 0; i < 5; i++) {
      await bob.post('/api/memories', {
        content: `${BOB_ONLY} bob private note ${i}`,
        visibility: 'private',
      });
      const started = await alice.post<{ id: string }>('/api/sessions', { agent: 'fuzz', project: 'fuzz' });
      (i < 3 ? pools.sessionsA : pools.sessionsB).push(started.body.id);
      const user = await admin.post<{ id: string }>('/api/admin/users', { username: `victim${i}` });
      (i < 3 ? pools.usersA : pools.usersB).push(user.body.id);
      const key = await admin.post<{ id: string }>(`/api/admin/users/${user.body.id}/keys`, { name: 'fuzz' });
      (i < 3 ? pools.keysA : pools.keysB).push(key.body.id);
    }
    const users = await db.query<{ id: string }>(`SELECT id FROM users WHERE username = 'bob'`);
    bobId = users.rows[0].id;
    bobsRowsBefore = await bobsRows();
  });

  /** Every row that belongs to bob: nothing alice or the admin sends here may change one. */
  const bobsRows = () =>
    snapshotDatabase(db, {
      ...VOLATILE,
      where: (table, columns) => {
        if (table === 'users') return { clause: 't.id = $1', params: [bobId] };
        if (table === 'sync_audience_changes') return { clause: '' }; // alice sharing with bob is alice's
        const column = columns.includes('owner_id')
          ? 'owner_id'
          : columns.includes('user_id')
            ? 'user_id'
            : undefined;
        return column ? { clause: `t.${column} = $1`, params: [bobId] } : { clause: '' };
      },
    });

  afterAll(async () => {
    tally.report();
    process.stdout.write(`Input fuzz seed: ${SEED} (CHAOS_SEED=${SEED} repeats this run's choices)\n`);
    if (tally.get('5xx') > 0 && api) {
      // The server's side of each 5xx, for whoever fixes it.
      const errors = api
        .output()
        .split('\n')
        .filter((line) => /"level":50|"statusCode":5\d\d/.test(line));
      process.stdout.write(`${errors.slice(0, 20).join('\n')}\n`);
    }
    await db?.end();
    await api?.stop();
    await scratch?.drop();
  });

  /** A value for a path parameter: a fixture of the right kind, or one the schema generates. */
  const pathValue = (op: ApiOperation, name: string, phase: 'A' | 'B', schema: JsonSchema): string => {
    const pick = <T>(a: T[]) => a[Math.floor(random() * a.length)];
    const fixture = (): string | number | undefined => {
      if (name === 'user') return 'bob';
      if (op.path.startsWith('/api/memories/'))
        return pick(phase === 'A' ? pools.memoriesA : pools.memoriesB);
      if (op.path.startsWith('/api/sessions/'))
        return pick(phase === 'A' ? pools.sessionsA : pools.sessionsB);
      if (op.path.startsWith('/api/admin/users/')) return pick(phase === 'A' ? pools.usersA : pools.usersB);
      if (op.path.startsWith('/api/admin/keys/')) return pick(phase === 'A' ? pools.keysA : pools.keysB);
      return undefined;
    };
    const known = name === 'type' ? undefined : fixture();
    if (known !== undefined && (phase === 'B' || random() < 0.6)) return encodeURIComponent(String(known));
    return encodeURIComponent(
      String(fc.sample(arbitraryFor(schema, doc), { numRuns: 1, seed: SEED + seq++ })[0]),
    );
  };

  const mcp = (): McpFuzz => ({
    url: `${api.url}/mcp`,
    key: team.keys.alice,
    tally,
    seed: SEED,
    forbiddenText: BOB_ONLY,
  });

  const keyFor = (op: ApiOperation) => (op.admin ? team.keys.admin : team.keys.alice);

  /** A request the document says is valid (path, query, headers and body from the schemas). */
  const validRequest = (op: ApiOperation, phase: 'A' | 'B'): RawRequest & { bodyValue?: unknown } => {
    const path: Record<string, string> = {};
    const query = new URLSearchParams();
    const headers: Record<string, string> = {};
    for (const p of op.parameters) {
      if (p.in === 'path') path[p.name] = pathValue(op, p.name, phase, p.schema);
      else if (p.required || random() < 0.5) {
        const value = String(fc.sample(arbitraryFor(p.schema, doc), { numRuns: 1, seed: SEED + seq++ })[0]);
        if (p.in === 'query') query.set(p.name, value);
        else headers[p.name] = value;
      }
    }
    const qs = query.toString();
    const url = `${api.url}${fillPath(op.path, path)}${qs ? `?${qs}` : ''}`;
    if (!op.body) return { method: op.method, url, key: keyFor(op), headers };
    const bodyValue = fc.sample(arbitraryFor(op.body.schema, doc), { numRuns: 1, seed: SEED + seq++ })[0];
    const body =
      op.body.contentType.includes('json') &&
      !op.body.contentType.includes('ndjson') &&
      !op.body.contentType.includes('jsonl')
        ? JSON.stringify(bodyValue)
        : String(bodyValue);
    return {
      method: op.method,
      url,
      key: keyFor(op),
      headers,
      body,
      contentType: op.body.contentType,
      bodyValue,
    };
  };

  const where = (op: ApiOperation, request: RawRequest, kind: string) =>
    `${op.method} ${op.path} [${kind}] ${request.url.replace(api.url, '').slice(0, 120)}`;

  /** Every answer: no 5xx, no hang, no reset, no bob-only text; a 4xx has a JSON error body. */
  const judge = (what: string, answer: RawAnswer) => {
    if (answer.error) {
      tally.add('calls');
      tally.add('no answer');
      tally.check(`${what} answered`, false, () => answer.error ?? '');
      return;
    }
    tally.status(answer.status, what);
    if (answer.text.includes(BOB_ONLY)) {
      tally.add('leaks');
      tally.check(`${what} shows nothing of bob's private memories`, false, () => answer.text.slice(0, 200));
    }
    if (answer.status >= 400 && answer.status < 500) {
      tally.check(`${what}: a 4xx with a JSON error body`, isJsonError(answer), () =>
        answer.text.slice(0, 200),
      );
    }
  };

  it('answers generated valid requests with 2xx or a documented 4xx (every operation)', async () => {
    expect(operations.length).toBeGreaterThan(50);
    // Generated before any is sent, so a seed gives the same requests whatever the timing.
    const jobs = operations.flatMap((op) =>
      Array.from({ length: VALID_PER_OPERATION }, () => ({ op, request: validRequest(op, 'A') })),
    );
    await inPool(jobs.length, CONCURRENCY, async (i) => {
      const { op, request } = jobs[i];
      const answer = await sendRaw(request);
      const what = where(op, request, 'valid');
      judge(what, answer);
      tally.add('valid requests');
      if (answer.status >= 200 && answer.status < 300) tally.add('valid requests answered 2xx');
      tally.check(
        `${what}: status documented`,
        op.documented.has(answer.status),
        () => `${answer.status} ${answer.text.slice(0, 200)}`,
      );
    });
    expect(tally.get('valid requests answered 2xx')).toBeGreaterThan(operations.length);
  });

  it("answers MCP tools/call with arguments generated from each tool's input schema", async () => {
    const tools = await listTools(mcp());
    expect(tools.length).toBeGreaterThan(10);
    await validToolCalls(mcp(), tools, VALID_PER_TOOL);
  });

  it('answers mutations that may be valid (ignored fields, -0, unbounded numbers) without a 5xx', async () => {
    const ctx = {
      random,
      foreignIdentity: {},
      ignoredIdentity: { created_by: bobId, id: pools.memoriesB[0] },
    };
    const jobs: Array<{ op: ApiOperation; request: RawRequest; kind: string }> = operations
      .filter((op) => op.body?.contentType === 'application/json')
      .flatMap((op) => {
        const request = validRequest(op, 'A');
        return mutateBody(request.bodyValue, op.body!.schema, doc, ctx)
          .filter((m) => !m.mustRefuse)
          .map((m) => ({
            op,
            request: { ...request, body: m.body, contentType: m.contentType ?? request.contentType },
            kind: m.kind,
          }));
      });
    // Unknown query parameters are ignored (prototype names too), and a query's bytes that are not
    // UTF-8 read as U+FFFD: answers, never a 5xx.
    for (const op of operations.filter((o) => o.method === 'GET')) {
      const request = validRequest(op, 'A');
      for (const extra of ['__proto__=x', 'constructor[prototype][x]=1', 'prototype=1', 'tag=a%ED%A0%80']) {
        const sep = request.url.includes('?') ? '&' : '?';
        jobs.push({ op, request: { ...request, url: `${request.url}${sep}${extra}` }, kind: 'extra query' });
      }
    }
    await inPool(jobs.length, CONCURRENCY, async (i) => {
      const { op, request, kind } = jobs[i];
      tally.add('benign mutations sent');
      judge(where(op, request, kind), await sendRaw(request));
    });
    // Nothing alice or the admin sent made alice an admin or changed a row of bob's.
    expect((await client(api.url, team.keys.alice).get('/api/admin/users')).status).toBe(403);
    const changed = diffSnapshots(bobsRowsBefore, await bobsRows());
    tally.check("no valid or benign request changed bob's rows", changed.length === 0, () =>
      changed.join('; '),
    );
    expect(changed).toEqual([]);
    expect(Object.values(bobsRowsBefore).reduce((n, t) => n + t.rows, 0)).toBeGreaterThan(5);
  });

  it('refuses every hostile request with a 4xx and a JSON error body, and the database does not change', async () => {
    const snapshot = () => snapshotDatabase(db, VOLATILE);
    const before: DatabaseSnapshot = await snapshot();
    tally.check(
      'the snapshot is stable while nothing is sent',
      diffSnapshots(before, await snapshot()).length === 0,
    );

    const ctx = {
      random,
      foreignIdentity: {
        user_id: bobId,
        owner: 'bob',
        owner_id: bobId,
        tenant: 'other-team',
        tenant_id: bobId,
      },
      ignoredIdentity: {},
    };
    const jobs: Array<{ op: ApiOperation; request: RawRequest; kind: string }> = [];
    for (const op of operations.flatMap((o) => Array.from({ length: MUTATION_ROUNDS }, () => o))) {
      const valid = validRequest(op, 'B');
      if (op.body?.contentType === 'application/json') {
        for (const m of mutateBody(valid.bodyValue, op.body.schema, doc, ctx).filter((x) => x.mustRefuse)) {
          jobs.push({
            op,
            request: { ...valid, body: m.body, contentType: m.contentType ?? valid.contentType },
            kind: m.kind,
          });
        }
      }
      for (const p of op.parameters.filter((x) => x.in !== 'header')) {
        for (const [kind, value] of hostileParameterValues(p.schema, p.in)) {
          const url = parameterVariant(valid.url, op, p.name, p.in, value);
          jobs.push({ op, request: { ...valid, url }, kind: `${p.in} ${p.name}: ${kind}` });
        }
      }
    }
    await inPool(jobs.length, CONCURRENCY, async (i) => {
      const { op, request, kind } = jobs[i];
      tally.add('mutations sent');
      const answer = await sendRaw(request);
      const what = where(op, request, kind);
      judge(what, answer);
      if (!answer.error && answer.status < 500) {
        tally.check(
          `${what} refused with a 4xx`,
          answer.status >= 400,
          () => `${answer.status} ${answer.text.slice(0, 200)}`,
        );
      }
    });
    tally.add(
      'mcp mutations sent',
      await hostileMcpCalls(mcp(), await listTools(mcp()), ctx.foreignIdentity, random),
    );

    const changes = diffSnapshots(before, await snapshot());
    tally.add('changes seen', changes.length);
    tally.check('hostile requests changed nothing in the database', changes.length === 0, () =>
      changes.join('; '),
    );
    expect(changes).toEqual([]);
    expect((await client(api.url, team.keys.alice).get('/api/admin/users')).status).toBe(403);
    tally.assertClean();
  });

  /** The URL of `base` with one path or query parameter replaced by a raw (already encoded) value. */
  function parameterVariant(
    base: string,
    op: ApiOperation,
    name: string,
    where: string,
    raw: string,
  ): string {
    const url = new URL(base);
    if (where === 'query') {
      const rest = [...url.searchParams]
        .filter(([k]) => k !== name)
        .map(([k, v]) => `${k}=${encodeURIComponent(v)}`);
      return `${url.origin}${url.pathname}?${[...rest, `${name}=${raw}`].join('&')}`;
    }
    const segments = op.path.split('/');
    const index = segments.indexOf(`{${name}}`);
    const parts = url.pathname.split('/');
    parts[index] = raw;
    return `${url.origin}${parts.join('/')}${url.search}`;
  }

  /** Values a parameter's schema refuses, as sent on the wire; NUL and lone surrogates always. */
  function hostileParameterValues(schema: JsonSchema, where: string): Array<[string, string]> {
    const candidates: Array<[string, string]> = [
      ['wrong type', 'not-a-number'],
      ['negative', '-1'],
      ['huge number', '1e308'],
      ['2^64', '18446744073709551616'],
      ['NaN', 'NaN'],
      ['-0', '-0'],
      ['huge string (8 KB)', 'x'.repeat(8192)],
      ['deep nesting', encodeURIComponent('['.repeat(2000))],
    ];
    const refused = candidates.filter(([, raw]) => !acceptsString(schema, decodeURIComponent(raw), doc));
    // Not UTF-8 (a surrogate's CESU-8 bytes): a path refuses it; a query string reads U+FFFD instead.
    const malformed: Array<[string, string]> = where === 'path' ? [['lone surrogate', 'a%ED%A0%80']] : [];
    return [...refused, ['NUL byte', 'a%00b'], ...malformed];
  }
});
