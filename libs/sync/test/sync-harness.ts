import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { Client } from 'pg';
import { type AppConfig } from '@app/config';
import {
  SyncMemoryChangesUseCase,
  SyncPurgeTombstonesUseCase,
  SyncSeedDumpUseCase,
  type SyncedMemory,
  type SyncSettings,
} from '@app/sync';
import {
  MemorySyncRepository,
  SyncCursorCodecProvider,
  SyncFeedRepository,
  SyncRetentionRepository,
} from '@app/sync/testing';
import { ServerSecretRepository, type TenantScope } from '@app/persistence';
import { MEMBER_SCOPES, type Principal } from '@app/tenancy';
import { type TestDatabase, type TestTenant } from '@app/testing';

/** Shared wiring for the sync integration suites (not a test file itself). */
export const SYNC_SETTINGS_FOR_TESTS: SyncSettings = {
  pageDefault: 3,
  pageMax: 50,
  tombstoneRetentionDays: 90,
  sinceOverlapMs: 1000,
};

/** `pages`: where the change feed's pages are read (a replica's database); `db` otherwise. */
export function syncUseCases(
  db: TestDatabase,
  settings: SyncSettings = SYNC_SETTINGS_FOR_TESTS,
  pages: TestDatabase = db,
) {
  const config: Pick<AppConfig, 'sync'> = { sync: { cursorSecret: undefined, ...settings } };
  const codecs = new SyncCursorCodecProvider(config, db.tx, new ServerSecretRepository());
  return {
    codecs,
    changes: new SyncMemoryChangesUseCase(pages.tx, new SyncFeedRepository(), codecs, settings),
    seed: new SyncSeedDumpUseCase(db.tx, new MemorySyncRepository(), codecs, settings),
    retention: new SyncPurgeTombstonesUseCase(db.tx, new SyncRetentionRepository(), settings),
  };
}

export async function principalIn(
  tenant: TestTenant,
  name = `u-${randomUUID().slice(0, 8)}`,
): Promise<Principal> {
  return {
    ...(await tenant.addUser(name)),
    tenantSlug: tenant.slug,
    keyId: randomUUID(),
    scopes: MEMBER_SCOPES,
  };
}

/** The same user through an admin key (reads and changes the whole tenant). */
/** The principal's admin key, granted private access (its tenant must allow it: allowAdminPrivateAccess). */
export function asAdmin(principal: Principal): Principal {
  return { ...principal, keyId: randomUUID(), scopes: [...MEMBER_SCOPES, 'admin'], privateAccess: true };
}

/**
 * Waits until every transaction that began before the call has finished, so the next sync read
 * returns everything committed so far. The feed only hands out changes of finished transactions,
 * and any transaction of this database (another test's) may hold that back a moment.
 */
export async function settle(db: TestDatabase): Promise<void> {
  const mark = await db.tx.asSystem(async (tx) => {
    const { rows } = await tx.query<{ xid: string }>(`SELECT pg_current_xact_id()::text AS xid`);
    return rows[0].xid;
  });
  for (let i = 0; ; i += 1) {
    const done = await db.tx.asSystem(async (tx) => {
      const { rows } = await tx.query<{ done: boolean }>(`SELECT sync_horizon() > $1::bigint AS done`, [
        mark,
      ]);
      return rows[0].done;
    });
    if (done) return;
    if (i > 3000) throw new Error(`transactions older than ${mark} are still running`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export async function readJson<T>(stream: Readable): Promise<T> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as T;
}

/**
 * A connection acting as the app role for one user, with explicit transaction control, so tests
 * can hold a transaction open while others commit (what the TransactionRunner never exposes).
 */
export class ManualWriter {
  private constructor(
    private readonly client: Client,
    private readonly scope: TenantScope,
  ) {}

  static async open(url: string, scope: TenantScope): Promise<ManualWriter> {
    const client = new Client({ connectionString: url, application_name: 'sync-test-writer' });
    await client.connect();
    return new ManualWriter(client, scope);
  }

  async begin(): Promise<void> {
    await this.client.query('BEGIN');
    await this.client.query(
      `SELECT set_config('role', 'memory_app', true), set_config('app.tenant_id', $1, true), set_config('app.user_id', $2, true)`,
      [this.scope.tenantId, this.scope.userId],
    );
  }

  /** Fixes the transaction's now() (so updated_at) without touching any row. */
  async touchClock(): Promise<void> {
    await this.client.query('SELECT now()');
  }

  async insert(content: string): Promise<number> {
    const { rows } = await this.client.query<{ id: string }>(
      `INSERT INTO memories (tenant_id, owner_id, content, content_hash)
       VALUES ($1, $2, $3, sha256(convert_to($3, 'UTF8'))) RETURNING id`,
      [this.scope.tenantId, this.scope.userId, content],
    );
    return Number(rows[0].id);
  }

  async query(sql: string, params: unknown[] = []): Promise<void> {
    await this.client.query(sql, params);
  }

  async commit(): Promise<void> {
    await this.client.query('COMMIT');
  }

  async rollback(): Promise<void> {
    await this.client.query('ROLLBACK');
  }

  async close(): Promise<void> {
    await this.client.end();
  }
}

/** One autocommitted statement as the app role for `scope`. */
export async function asUser<T = Record<string, unknown>>(
  db: TestDatabase,
  scope: TenantScope,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  return db.tx.inTenant(scope, async (tx) => (await tx.query<T>(sql, params)).rows);
}

export async function insertMemory(
  db: TestDatabase,
  scope: TenantScope,
  content: string,
  options: { visibility?: 'team' | 'private'; tags?: string[] } = {},
): Promise<number> {
  const rows = await asUser<{ id: string }>(
    db,
    scope,
    `INSERT INTO memories (tenant_id, owner_id, content, content_hash, visibility, tags)
     VALUES ($1, $2, $3, sha256(convert_to($3, 'UTF8')), $4, $5) RETURNING id`,
    [scope.tenantId, scope.userId, content, options.visibility ?? 'private', options.tags ?? []],
  );
  return Number(rows[0].id);
}

/** `owner` shares memory `id` with `recipient` (read), as the sharing routes do. */
export async function share(db: TestDatabase, owner: TenantScope, id: number, recipient: TenantScope) {
  await asUser(
    db,
    owner,
    `INSERT INTO memory_shares (memory_id, owner_id, shared_with, tenant_id, permission)
     VALUES ($1, $2, $3, $4, 'read')`,
    [id, owner.userId, recipient.userId, owner.tenantId],
  );
}

export async function unshare(db: TestDatabase, owner: TenantScope, id: number, recipient: TenantScope) {
  await asUser(db, owner, `DELETE FROM memory_shares WHERE memory_id = $1 AND shared_with = $2`, [
    id,
    recipient.userId,
  ]);
}

/** `owner` shares every memory of theirs tagged `tag`, now and later, with `recipient`. */
export async function shareTag(db: TestDatabase, owner: TenantScope, tag: string, recipient: TenantScope) {
  await asUser(
    db,
    owner,
    `INSERT INTO tag_shares (owner_id, tag, shared_with, tenant_id, permission) VALUES ($1, $2, $3, $4, 'read')`,
    [owner.userId, tag, recipient.userId, owner.tenantId],
  );
}

export async function unshareTag(db: TestDatabase, owner: TenantScope, tag: string, recipient: TenantScope) {
  await asUser(db, owner, `DELETE FROM tag_shares WHERE owner_id = $1 AND tag = $2 AND shared_with = $3`, [
    owner.userId,
    tag,
    recipient.userId,
  ]);
}

export async function changeSeqOf(db: TestDatabase, id: number): Promise<number> {
  return db.tx.asSystem(async (tx) => {
    const { rows } = await tx.query<{ change_seq: string }>(`SELECT change_seq FROM memories WHERE id = $1`, [
      id,
    ]);
    return Number(rows[0].change_seq);
  });
}

/**
 * A client's copy kept by following one user's cursor: rows by id, dropped on a tombstone. Pulls
 * after `settle`, so a pull sees everything committed before it.
 */
export class SyncFollower {
  readonly copy = new Map<number, SyncedMemory>();
  /** Every id the feed ever named to this user, as a row or a tombstone. */
  readonly named = new Set<number>();
  cursor: string | undefined;

  constructor(
    private readonly db: TestDatabase,
    private readonly sync: ReturnType<typeof syncUseCases>,
    readonly who: Principal,
    private readonly limit = 3,
  ) {}

  /**
   * Applies every page after the cursor; answers what this pull delivered. `settled: false` reads
   * at once, while a test holds a transaction open.
   */
  async pull({ settled = true } = {}): Promise<{ rows: number[]; tombstones: number[] }> {
    if (settled) await settle(this.db);
    const delivered = { rows: [] as number[], tombstones: [] as number[] };
    for (;;) {
      const page = await this.sync.changes.execute(this.who, { cursor: this.cursor, limit: this.limit });
      for (const m of page.memories) {
        this.copy.set(m.id, m);
        this.named.add(m.id);
        delivered.rows.push(m.id);
      }
      for (const t of page.tombstones) {
        this.copy.delete(t.id);
        this.named.add(t.id);
        delivered.tombstones.push(t.id);
      }
      this.cursor = page.nextCursor;
      if (!page.hasMore) return delivered;
    }
  }
}
