import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { createDataSource, runMigrations, TransactionRunner } from '@app/persistence';

export interface TestDatabase {
  readonly dataSource: DataSource;
  readonly tx: TransactionRunner;
  close(): Promise<void>;
}

/** Runs every migration in the database at `url` (a superuser URL), on a connection of its own. */
export async function migrateDatabase(url: string, applicationName = 'test-setup'): Promise<void> {
  const source = createDataSource({ url, poolSize: 2, statementTimeoutMs: 60_000, applicationName });
  await source.initialize();
  try {
    await runMigrations(source);
  } finally {
    await source.destroy();
  }
}

export async function openTestDatabase(url: string, poolSize = 4): Promise<TestDatabase> {
  const dataSource = createDataSource({ url, poolSize, statementTimeoutMs: 30_000, applicationName: 'test' });
  await dataSource.initialize();
  return {
    dataSource,
    tx: new TransactionRunner(dataSource, 'memory_app', { preparedStatements: true, pipelining: true }),
    close: () => dataSource.destroy(),
  };
}

export interface TestTenant {
  readonly tenantId: string;
  readonly slug: string;
  /** Creates a user in this tenant and returns its tenant scope. */
  addUser(username?: string): Promise<{ tenantId: string; userId: string; username: string }>;
  /** Turns on `admin_private_access`: admin scopes granted private access then read every memory. */
  allowAdminPrivateAccess(): Promise<void>;
}

/** Turns on a tenant's `admin_private_access` setting (as an admin would with a PATCH). */
export async function allowAdminPrivateAccess(db: TestDatabase, tenantId: string): Promise<void> {
  await db.tx.asSystem((tx) =>
    tx.query(`UPDATE tenants SET admin_private_access = true WHERE id = $1`, [tenantId]),
  );
}

/** Each test makes its own tenant instead of truncating shared tables. */
export async function createTestTenant(db: TestDatabase, prefix = 't'): Promise<TestTenant> {
  const slug = `${prefix}-${randomUUID().slice(0, 12)}`;
  const tenantId = await db.tx.asSystem(async (tx) => {
    const { rows } = await tx.query<{ id: string }>(
      `INSERT INTO tenants (slug, name) VALUES ($1, $1) RETURNING id`,
      [slug],
    );
    return rows[0].id;
  });
  return {
    tenantId,
    slug,
    addUser: async (username = `u-${randomUUID().slice(0, 8)}`) => {
      const userId = await db.tx.asSystem(async (tx) => {
        const { rows } = await tx.query<{ id: string }>(
          `INSERT INTO users (tenant_id, username) VALUES ($1, $2) RETURNING id`,
          [tenantId, username],
        );
        return rows[0].id;
      });
      return { tenantId, userId, username };
    },
    allowAdminPrivateAccess: () => allowAdminPrivateAccess(db, tenantId),
  };
}
