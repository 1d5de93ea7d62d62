import { randomUUID } from 'node:crypto';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import type { Client as Db } from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { contentHash } from '@app/memories';
import { teamFixture } from '../support/e2e-env';
import { client } from '../support/http-client';
import { bearer, callTool, connectMcp } from '../support/mcp-client';
import { startApiProcess, type ApiProcess } from '../support/processes';
import { racingCommit } from '../support/racing-commit';
import { withDb } from '../support/superuser-db';
import { waitFor } from '../support/wait-for';

/**
 * Every unique, foreign key and check constraint of the schema (pg_constraint, plus unique indexes
 * backing none) is either driven below by a request — which must answer the documented 4xx, never
 * 500 — or listed here with why no request reaches it. The first test fails for a new constraint
 * until it is placed. (Not-null columns are filled by the code or defaults; 23502 is mapped and
 * unit-tested in apps/api/src/http/error-mapping.spec.ts, as is every SQLSTATE.)
 */
const UNREACHABLE: ReadonlyArray<readonly [reason: string, constraints: readonly string[]]> = [
  ['TypeORM’s migrations table: written by the migration runner only', ['PK_62441bec32630ced9e4cccae336']],
  [
    'keys the database draws (identity, gen_random_uuid); (id, owner_id) is unique because id is',
    ['tenants_pkey', 'users_pkey', 'api_keys_pkey', 'memories_pkey', 'memories_id_owner', 'outbox_pkey']
      .concat(['audit_log_pkey', 'jobs_pkey', 'secret_cleanup_pkey', 'memory_links_pkey'])
      .concat(['sync_audience_changes_pkey', 'session_events_pkey']),
  ],
  [
    'written with ON CONFLICT on that key: a concurrent equal key is waited for and answered (user_exists, link_exists, the same session, a duplicate event), never raised',
    ['tenants_slug_key', 'users_tenant_id_username_key', 'idempotency_keys_pkey', 'memory_index_state_pkey']
      .concat(['memory_shares_pkey', 'tag_shares_pkey', 'memory_links_src_id_dst_id_link_type_key'])
      .concat(['sessions_pkey', 'session_events_client_id', 'server_secrets_pkey', 'sync_state_pkey'])
      .concat(['sync_tenant_state_pkey', 'memory_text_lengths_pkey', 'text_corpus_stats_pkey'])
      .concat(['text_term_stats_pkey', 'memory_usage_pkey']),
  ],
  [
    'the sha256 of a random 190-bit key (env keys are written at start-up)',
    ['api_keys_key_hash_key', 'api_key_hashes_pkey'],
  ],
  [
    'the contract refuses the value first with the same rule (zod enum, range, pattern, length)',
    ['users_username_check', 'api_keys_default_visibility_check', 'memories_importance_check']
      .concat(['memories_visibility_check', 'memory_shares_permission_check', 'tag_shares_permission_check'])
      .concat(['memory_links_link_type_check', 'sessions_status_check', 'session_events_kind_check'])
      // A JS length counts UTF-16 units: never fewer than Postgres' characters.
      .concat(['session_events_client_id_check', 'embedding_models_id_check']),
  ],
  [
    'the use case refuses first: sharing with the owner (400 share_with_self, admins too), a self link (422, imports skip them), a model of another size (422); the model registry is changed under its lock after a read',
    [
      'memory_shares_check',
      'tag_shares_check',
      'memory_links_check',
      'embedding_models_dimensions_check',
    ].concat(['embedding_models_pkey']),
  ],
  [
    'values the code sets (constants, sha256 hashes, random secrets), never a request’s',
    ['api_keys_key_hash_check', 'api_keys_revoked_reason_check', 'api_keys_revoked_reason_set']
      .concat(['api_keys_source_check', 'memory_index_state_status_check', 'embedding_models_status_check'])
      .concat(['jobs_kind_check', 'jobs_status_check', 'sync_audience_changes_audience_check'])
      .concat(['sync_audience_changes_check', 'text_stats_deltas_sign_check', 'server_secrets_value_check']),
  ],
  [
    'tenants are written by the start-up bootstrap and the CLI only (quotas, slugs), and no code deletes one: every row names the caller’s existing tenant',
    ['tenants_slug_check', 'tenants_max_memories_check', 'tenants_max_memory_bytes_check']
      .concat(['tenants_max_sessions_per_day_check', 'users_tenant_id_fkey', 'api_keys_tenant_id_fkey'])
      .concat(['memories_tenant_id_fkey', 'jobs_tenant_id_fkey', 'sync_state_tenant_id_fkey'])
      .concat(['memory_shares_tenant_id_fkey', 'tag_shares_tenant_id_fkey', 'memory_links_tenant_id_fkey'])
      .concat(['sync_audience_changes_tenant_id_fkey', 'sync_tenant_state_tenant_id_fkey'])
      .concat([
        'sessions_tenant_id_fkey',
        'session_events_tenant_id_fkey',
        'text_corpus_stats_tenant_id_fkey',
      ])
      .concat(['text_term_stats_tenant_id_fkey', 'memory_usage_tenant_id_fkey']),
  ],
  [
    'no code deletes a user: DELETE /api/admin/users/:id disables the user and erases their data, the row stays',
    ['api_keys_user_id_fkey', 'memories_owner_id_fkey', 'jobs_created_by_fkey', 'sync_state_user_id_fkey']
      .concat(['memory_shares_shared_with_fkey', 'tag_shares_owner_id_fkey', 'tag_shares_shared_with_fkey'])
      .concat(['memory_links_created_by_fkey', 'sync_audience_changes_user_id_fkey', 'sessions_user_id_fkey'])
      .concat(['session_events_user_id_fkey']),
  ],
  [
    'the row referred to is locked and read again first, so its removal answers 404: an update locks its memory (a store indexes the row it just wrote); events and transcript imports lock their session',
    ['memory_index_state_memory_id_fkey', 'session_events_session_id_fkey'],
  ],
  [
    'written outside requests or for the statement’s own rows: embeddings by the worker, text lengths by a trigger on the row written, a key’s replacement in the rotation’s transaction, the active model by the reindex job, a key’s hash claim and a text length’s tenant by triggers from their row',
    ['memory_embeddings_pkey', 'memory_embeddings_memory_id_fkey', 'memory_embeddings_model_id_fkey']
      .concat(['memory_embeddings_input_hash_check', 'memory_text_lengths_memory_id_fkey'])
      .concat(['api_keys_replaced_by_fkey', 'embedding_models_one_active'])
      .concat(['memory_text_lengths_tenant_id_fkey', 'api_key_hashes_tenant_id_fkey']),
  ],
  [
    'webhook endpoints (migration 1763700000056): ids are generated, the tenant is the admin’s; the URL is refused above 2000 characters before and after it is normalised (422/400), the description above 500 (422); the events are the known types a subscription names, 1 to 11 of them, an unknown name refused first (422)',
    [
      'webhook_endpoints_pkey',
      'webhook_endpoints_tenant_id_fkey',
      'webhook_endpoints_url_check',
      'webhook_endpoints_description_check',
      'webhook_endpoints_events_check',
    ],
  ],
  [
    'webhook deliveries and their attempts: written only by the writes’ trigger (`webhook_emit`, for endpoints it selects in the same statement, with a generated id and status) and by the worker (each attempt numbered by its delivery’s counter, incremented in the same statement)',
    [
      'webhook_deliveries_pkey',
      'webhook_deliveries_endpoint_fkey',
      'webhook_deliveries_status_check',
      'webhook_delivery_attempts_pkey',
      'webhook_delivery_attempts_delivery_fkey',
    ],
  ],
  [
    'sign-in identities (migration 1763700000055): written with ON CONFLICT on their key, with the key row they name in the same statement, for a user found or added in the same transaction of the tenant the configured issuer names; the issuer comes from the configuration and the subject is refused first when longer than 255 characters (401)',
    ['user_identities_pkey', 'user_identities_issuer_check', 'user_identities_subject_check'].concat([
      'user_identities_tenant_id_fkey',
      'user_identities_user_fkey',
      'user_identities_key_fkey',
    ]),
  ],
  [
    'console sign-in sessions (migration 1763700000057): the key is the SHA-256 (32 bytes) of 32 random bytes, written once at sign-in for the identity key and user found in the same transaction of the tenant the configured issuer names',
    ['console_sessions_pkey', 'console_sessions_token_hash_check', 'console_sessions_tenant_id_fkey'].concat([
      'console_sessions_user_fkey',
      'console_sessions_key_fkey',
    ]),
  ],
  [
    'pins (migration 1763700000047): an identity key; written with ON CONFLICT on the team and the personal key; scope from the contract’s enum, user set by the code with it; the caller’s own tenant and user; the memory read under the caller’s visibility first in the same transaction (a purge committing in between answers 409 write_conflict, as every foreign key)',
    ['memory_pins_pkey', 'memory_pins_team', 'memory_pins_user', 'memory_pins_scope_check']
      .concat(['memory_pins_check', 'memory_pins_tenant_id_fkey', 'memory_pins_user_id_fkey'])
      .concat(['memory_pins_memory_id_fkey']),
  ],
  [
    'endorsements (migration 1763700000044): written with ON CONFLICT on their key, by the caller for a team memory the same transaction just read under a per-tenant-and-text lock; the caller’s own tenant and user (users are never deleted)',
    [
      'memory_endorsements_pkey',
      'memory_endorsements_memory_id_fkey',
      'memory_endorsements_tenant_id_fkey',
    ].concat(['memory_endorsements_user_id_fkey']),
  ],
  [
    'versions (migration 1763700000045): copied from the memory row the update has locked (its number follows the row’s, its visibility is the row’s), by the caller of the caller’s tenant',
    ['memory_versions_pkey', 'memory_versions_memory_id_fkey', 'memory_versions_tenant_id_fkey']
      .concat(['memory_versions_author_id_fkey', 'memory_versions_replaced_by_fkey'])
      .concat(['memory_versions_version_check', 'memory_versions_visibility_check']),
  ],
  [
    'code anchors (migration 1763700000050): written by the write path from the anchors contract (lines positive and ordered, at most 20 numbered in order, replaced as a whole in the memory’s transaction after its row is locked), their state only by code to one of its three values; code events by the caller of the caller’s tenant, applied by the worker; the caller’s own tenant; a memory’s anchors follow it (cascade)',
    ['memory_anchors_pkey', 'memory_anchors_memory_id_ordinal_key', 'memory_anchors_line_start_check']
      .concat(['memory_anchors_check', 'memory_anchors_state_check', 'memory_anchors_tenant_id_fkey'])
      .concat(['memory_anchors_memory_id_fkey', 'memory_anchors_changed_event_fkey', 'code_events_pkey'])
      .concat(['code_events_tenant_id_fkey', 'code_events_reported_by_fkey']),
  ],
  [
    'review (migration 1763700000048): the state is set by code to one of its three values; the auto-accept period is checked by the settings contract (1…8760 or null) before the UPDATE',
    ['memories_review_state_check', 'tenants_proposal_auto_accept_hours_check'],
  ],
  [
    'branch scope (migration 1763700000051): the branch is checked by the contract (1…255 characters, a git branch name) before any write',
    ['memories_branch_check'],
  ],
];

type Http = ReturnType<typeof client>;
/** What a transport answered: REST status and code, or an MCP tool error's code. */
type Answer = { status: number; code: string } | { isError: boolean; code: string };
interface Scenario {
  readonly constraint: string;
  readonly via: 'REST' | 'MCP';
  readonly what: string;
  /** The SQLSTATE Postgres raised, and the answer the API must give for it. */
  readonly sqlstate: string;
  readonly run: () => Promise<Answer>;
}

describe('constraints a request can reach answer a documented 4xx, never 500', () => {
  let api: ApiProcess;
  let mcp: McpClient;
  const team = teamFixture({ REDIS_URL: '' });
  const alice = (): Http => client(api.url, team.keys.alice);

  beforeAll(async () => {
    api = await startApiProcess(team.env);
    mcp = await connectMcp(`${api.url}/mcp`, bearer(team.keys.alice));
  });
  afterAll(async () => {
    await mcp?.close();
    await api?.stop();
  });

  const text = (what: string) => `${what} ${randomUUID()}`;
  /**
   * Stores a memory and waits until the API's in-process job has embedded it: a race then meets the
   * request alone, not the job writing the memory's index state (the race commits as soon as any
   * backend waits for it).
   */
  const store = async (content = text('a memory')) => {
    const res = await alice().post<{ id: number }>('/api/memories', { content });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const id = res.body.id;
    await waitFor('the memory indexed', () =>
      withDb(async (db) => {
        const { rows } = await db.query<{ status: string }>(
          'SELECT status FROM memory_index_state WHERE memory_id = $1',
          [id],
        );
        return rows[0]?.status === 'pending' ? undefined : true;
      }),
    );
    return id;
  };
  /** The request meets a change another transaction commits while the request waits on it. */
  const racing = <T>(change: (db: Db) => Promise<unknown>, request: () => Promise<T>) =>
    racingCommit(inject('databaseUrl'), change, request);
  /** Alice's copy of `content`, written concurrently (the uniqueness rule). */
  const copyOf = (content: string) => (db: Db) =>
    db.query(
      `INSERT INTO memories (tenant_id, owner_id, content, content_hash)
       SELECT u.tenant_id, u.id, $3, $4 FROM users u JOIN tenants t ON t.id = u.tenant_id
        WHERE t.slug = $1 AND u.username = $2`,
      [team.tenant, 'alice', content, contentHash(content)],
    );
  /** A memory removed concurrently: a delete and purge, or an erasure of its owner's data. */
  const removal = (id: number) => (db: Db) => db.query('DELETE FROM memories WHERE id = $1', [id]);
  const rest = async (answer: Promise<{ status: number; body: unknown }>): Promise<Answer> => {
    const { status, body } = await answer;
    return { status, code: String((body as { code?: unknown }).code) };
  };
  const tool = async (name: string, args: Record<string, unknown>): Promise<Answer> => {
    const result = await callTool(mcp, name, args);
    return { isError: result.isError === true, code: /\[([a-z_]+)\]/.exec(result.text)?.[1] ?? result.text };
  };

  const edit = async (via: (id: number, content: string) => Promise<Answer>) => {
    const content = text('written twice at once');
    const id = await store();
    return racing(copyOf(content), () => via(id, content));
  };
  const restore = async (via: (id: number) => Promise<Answer>) => {
    const content = text('restored while copied');
    const id = await store(content);
    expect((await alice().delete(`/api/memories/${id}`)).status).toBe(200);
    return racing(copyOf(content), () => via(id));
  };
  const share = async (via: (id: number) => Promise<Answer>) => {
    const id = await store();
    return racing(removal(id), () => via(id));
  };
  const link = async (end: 'src' | 'dst', via: (src: number, dst: number) => Promise<Answer>) => {
    const [src, dst] = [await store(), await store()];
    return racing(removal(end === 'src' ? src : dst), () => via(src, dst));
  };
  const putContent = (id: number, content: string) => rest(alice().put(`/api/memories/${id}`, { content }));
  const postLink = (src: number, dst: number) =>
    rest(alice().post(`/api/memories/${src}/links`, { target_id: dst, link_type: 'see-also' }));
  const toolLink = (src: number, dst: number) =>
    tool('memory_link', { id: src, target_id: dst, link_type: 'see-also' });

  const scenario = (
    constraint: string,
    sqlstate: string,
    via: Scenario['via'],
    what: string,
    run: Scenario['run'],
  ): Scenario => ({ constraint, sqlstate, via, what, run });
  const unique = 'memories_owner_hash_live';
  const shared = 'memory_shares_memory_id_owner_id_fkey';
  const scenarios: Scenario[] = [
    scenario(unique, '23505', 'REST', 'PUT', () => edit(putContent)),
    scenario(unique, '23505', 'MCP', 'memory_update', () =>
      edit((id, content) => tool('memory_update', { id, content })),
    ),
    scenario(unique, '23505', 'REST', 'restore', () =>
      restore((id) => rest(alice().post(`/api/memories/${id}/restore`))),
    ),
    scenario(unique, '23505', 'MCP', 'memory_restore', () => restore((id) => tool('memory_restore', { id }))),
    scenario(shared, '23503', 'REST', 'share', () =>
      share((id) => rest(alice().post(`/api/memories/${id}/share`, { shared_with: 'bob' }))),
    ),
    scenario(shared, '23503', 'MCP', 'memory_share', () =>
      share((id) => tool('memory_share', { id, shared_with: 'bob' })),
    ),
    scenario('memory_links_src_id_fkey', '23503', 'REST', 'link', () => link('src', postLink)),
    scenario('memory_links_src_id_fkey', '23503', 'MCP', 'memory_link', () => link('src', toolLink)),
    scenario('memory_links_dst_id_fkey', '23503', 'REST', 'link', () => link('dst', postLink)),
    scenario('memory_links_dst_id_fkey', '23503', 'MCP', 'memory_link', () => link('dst', toolLink)),
  ];

  it('places every constraint of the schema: driven below, or unreachable with a reason', async () => {
    const inSchema = await withDb(async (db) => {
      const { rows } = await db.query<{ name: string }>(
        `SELECT conname AS name FROM pg_constraint
          WHERE connamespace = 'public'::regnamespace AND contype IN ('p', 'u', 'f', 'c', 'x')
         UNION ALL
         SELECT i.indexrelid::regclass::text FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
          WHERE i.indisunique AND c.relnamespace = 'public'::regnamespace
            AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid AND k.contype IN ('p', 'u', 'x'))`,
      );
      return rows.map((r) => r.name).sort();
    });
    const unreachable = UNREACHABLE.flatMap(([, names]) => names);
    const driven = [...new Set(scenarios.map((s) => s.constraint))];
    expect([...unreachable, ...driven].sort()).toEqual(inSchema);
    // Each constraint is placed once, and each driven one through REST.
    expect(new Set(unreachable).size).toBe(unreachable.length);
    for (const name of driven) expect(unreachable).not.toContain(name);
    for (const name of driven)
      expect(scenarios.some((s) => s.constraint === name && s.via === 'REST')).toBe(true);
  });

  it.each(scenarios.map((s) => [`${s.constraint} via ${s.via} ${s.what}`, s] as const))(
    '%s',
    async (_, scenario) => {
      const logged = api.output().length;
      const answer = await scenario.run();
      expect(answer).toEqual(
        scenario.via === 'REST'
          ? { status: 409, code: 'write_conflict' }
          : { isError: true, code: 'write_conflict' },
      );
      // The log proves which rule refused it (names only) and holds no error.
      const refusal = await waitFor('the refusal in the log', () =>
        api
          .output()
          .slice(logged)
          .split('\n')
          .find((line) => line.includes('database refused the write')),
      );
      expect(JSON.parse(refusal).refusedBy).toEqual({
        sqlstate: scenario.sqlstate,
        constraint: scenario.constraint,
        table: expect.any(String),
      });
      expect(api.output()).not.toMatch(/"level":(50|60)/);
    },
  );

  it('answers a value Postgres cannot store (a date in year 0) 422 invalid_value, logged by its SQLSTATE', async () => {
    const logged = api.output().length;
    const imported = await alice().post('/api/memories/import', [
      { content: text('said in year zero'), created_at: '0000-01-01T00:00:00Z' },
    ]);
    expect(imported).toMatchObject({ status: 422, body: { code: 'invalid_value' } });
    expect(JSON.stringify(imported.body)).not.toContain('0000');
    const refusal = await waitFor('the refusal in the log', () =>
      api
        .output()
        .slice(logged)
        .split('\n')
        .find((line) => line.includes('database refused the write')),
    );
    expect(JSON.parse(refusal).refusedBy).toEqual({ sqlstate: '22008' });
    expect(api.output()).not.toMatch(/"level":(50|60)/);
  });
});
