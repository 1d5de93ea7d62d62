import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { Client } from 'pg';
import { type AppConfig } from '@app/config';
import {
  SyncMemoryChangesUseCase,
  SyncPurgeTombstonesUseCase,
  SyncSeedDumpUseCase,
  type SyncSettings,
} from '@app/sync';
import { MemorySyncRepository } from '@app/sync/testing';
import { SyncRetentionRepository } from '@app/sync/testing';
import { SyncCursorCodecProvider } from '@app/sync/testing';
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

export function syncUseCases(db: TestDatabase, settings: SyncSettings = SYNC_SETTINGS_FOR_TESTS) {
  const config: Pick<AppConfig, 'sync'> = { sync: { cursorSecret: undefined, ...settings } };
  const codecs = new SyncCursorCodecProvider(config, db.tx, new ServerSecretRepository());
  const repository = new MemorySyncRepository();
  return {
    codecs,
    changes: new SyncMemoryChangesUseCase(db.tx, repository, codecs, settings),
    seed: new SyncSeedDumpUseCase(db.tx, repository, codecs, settings),
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

export async function insertMemory(db: TestDatabase, scope: TenantScope, content: string): Promise<number> {
  const rows = await asUser<{ id: string }>(
    db,
    scope,
    `INSERT INTO memories (tenant_id, owner_id, content, content_hash)
     VALUES ($1, $2, $3, sha256(convert_to($3, 'UTF8'))) RETURNING id`,
    [scope.tenantId, scope.userId, content],
  );
  return Number(rows[0].id);
}

export async function changeSeqOf(db: TestDatabase, id: number): Promise<number> {
  return db.tx.asSystem(async (tx) => {
    const { rows } = await tx.query<{ change_seq: string }>(`SELECT change_seq FROM memories WHERE id = $1`, [
      id,
    ]);
    return Number(rows[0].change_seq);
  });
}
