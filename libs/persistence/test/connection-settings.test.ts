import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '@app/testing';

/** Settings every pooled connection carries, whoever's transaction runs on it. */
describe('database connection settings', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 2);
  });
  afterAll(async () => db.close());

  it('turns JIT compilation off and applies the statement timeout, also in a tenant transaction', async () => {
    const scope = {
      tenantId: '00000000-0000-4000-8000-000000000001',
      userId: '00000000-0000-4000-8000-000000000002',
    };
    const settings = await db.tx.inTenant(scope, async (tx) => {
      const { rows } = await tx.query<{ jit: string; timeout: string }>(
        `SELECT current_setting('jit') AS jit, current_setting('statement_timeout') AS timeout`,
      );
      return rows[0];
    });
    expect(settings).toEqual({ jit: 'off', timeout: '30s' });
  });
});
