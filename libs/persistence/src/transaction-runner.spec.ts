import type { DataSource } from 'typeorm';
import { describe, expect, it } from 'vitest';
import { isRowSecurityRefusal, isTransactionConflict, TransactionRunner } from './transaction-runner';

const scope = {
  tenantId: '00000000-0000-4000-8000-000000000001',
  userId: '00000000-0000-4000-8000-000000000002',
};

/** A DataSource whose connections record statements; the work decides what fails. */
function fakeDataSource(log: string[], sent: unknown[] = []): DataSource {
  return {
    createQueryRunner: () => ({
      connect: async () => undefined,
      release: async () => undefined,
      query: async (sql: string | { text: string }) => {
        sent.push(sql);
        log.push((typeof sql === 'string' ? sql : sql.text).split(' ')[0]);
        return { records: [], affected: 0 };
      },
    }),
  } as unknown as DataSource;
}

const deadlock = () => Object.assign(new Error('deadlock detected'), { code: '40P01' });

describe('TransactionRunner conflict retry', () => {
  it('runs the work again after a deadlock when asked to, in a fresh transaction', async () => {
    const log: string[] = [];
    const runner = new TransactionRunner(fakeDataSource(log), 'memory_app');
    let attempts = 0;
    const result = await runner.inTenant(
      scope,
      async () => {
        if (++attempts === 1) throw deadlock();
        return 'done';
      },
      { retryConflicts: 1 },
    );
    expect(result).toBe('done');
    expect(attempts).toBe(2);
    // BEGIN carries the row-level security settings in the same round trip.
    expect(log).toEqual(['BEGIN;', 'ROLLBACK', 'BEGIN;', 'COMMIT']);
  });

  it('gives up after the allowed retries, and never retries other errors or by default', async () => {
    const runner = new TransactionRunner(fakeDataSource([]), 'memory_app');
    let attempts = 0;
    const alwaysDeadlocks = async () => {
      attempts++;
      throw deadlock();
    };
    await expect(runner.inTenant(scope, alwaysDeadlocks, { retryConflicts: 1 })).rejects.toThrow('deadlock');
    expect(attempts).toBe(2);
    attempts = 0;
    await expect(runner.inTenant(scope, alwaysDeadlocks)).rejects.toThrow('deadlock');
    expect(attempts).toBe(1);
    attempts = 0;
    const failsOtherwise = async () => {
      attempts++;
      throw Object.assign(new Error('unique violation'), { code: '23505' });
    };
    await expect(runner.inTenant(scope, failsOtherwise, { retryConflicts: 3 })).rejects.toThrow('unique');
    expect(attempts).toBe(1);
  });

  it('recognises deadlocks and serialization failures only', () => {
    expect(isTransactionConflict({ code: '40P01' })).toBe(true);
    expect(isTransactionConflict({ code: '40001' })).toBe(true);
    expect(isTransactionConflict({ code: '57014' })).toBe(false);
    expect(isTransactionConflict(null)).toBe(false);
  });

  it('recognises a row refused by row-level security, not other missing privileges', () => {
    const refused = {
      code: '42501',
      message: 'new row violates row-level security policy for table "memories"',
    };
    expect(isRowSecurityRefusal(refused)).toBe(true);
    expect(isRowSecurityRefusal({ code: '42501', message: 'permission denied for table memories' })).toBe(
      false,
    );
    expect(isRowSecurityRefusal({ code: '23505', message: refused.message })).toBe(false);
    expect(isRowSecurityRefusal(undefined)).toBe(false);
  });
});

describe('TransactionRunner prepared statements', () => {
  const lookup = 'SELECT id FROM memories WHERE id = ANY($1::bigint[])';

  it('names a statement asked to be prepared by its text, one name per text', async () => {
    const sent: unknown[] = [];
    const runner = new TransactionRunner(fakeDataSource([], sent), 'memory_app', {
      preparedStatements: true,
    });
    await runner.inTenant(scope, async (tx) => {
      await tx.query(lookup, [[1]], { prepared: true });
      await tx.query(lookup, [[2]], { prepared: true });
      await tx.query(`${lookup} AND true`, [[3]], { prepared: true });
      await tx.query(lookup, [[4]]);
    });
    const [first, again, other, plain] = sent.slice(1, 5) as Array<{ name: string; text: string } | string>;
    expect(first).toEqual({ name: expect.stringMatching(/^s_[0-9a-f]{40}$/), text: lookup });
    expect(again).toEqual(first);
    expect((other as { name: string }).name).not.toBe((first as { name: string }).name);
    expect(plain).toBe(lookup);
  });

  it('sends plain text when the runner does not prepare (embedded mode)', async () => {
    const sent: unknown[] = [];
    const runner = new TransactionRunner(fakeDataSource([], sent), 'memory_app');
    await runner.inTenant(scope, (tx) => tx.query(lookup, [[1]], { prepared: true }));
    expect(sent[1]).toBe(lookup);
  });

  it('opens the transaction and sets its RLS context in one round trip', async () => {
    const sent: unknown[] = [];
    const runner = new TransactionRunner(fakeDataSource([], sent), 'memory_app');
    await runner.inTenant({ ...scope, scopes: ['admin'] }, async () => undefined);
    expect(sent).toHaveLength(2);
    expect(sent[0]).toMatch(/^BEGIN; SELECT set_config\('role', 'memory_app', true\)/);
    expect(sent[0]).toContain(`set_config('app.user_id', '${scope.userId}', true)`);
    // An admin key is a tenant admin; the members' private memories need private access too.
    expect(sent[0]).toContain(
      `set_config('app.tenant_admin', 'on', true), set_config('app.admin', 'off', true)`,
    );
    await runner.inTenant({ ...scope, scopes: ['admin'], privateAccess: true }, async () => undefined);
    expect(sent[2]).toContain(
      `set_config('app.tenant_admin', 'on', true), set_config('app.admin', 'on', true)`,
    );
    await runner.inTenant(
      { ...scope, scopes: ['memories:read'], privateAccess: true },
      async () => undefined,
    );
    expect(sent[4]).toContain(
      `set_config('app.tenant_admin', 'off', true), set_config('app.admin', 'off', true)`,
    );
    expect(() => new TransactionRunner(fakeDataSource([]), "memory_app'; --")).toThrow(/identifier/);
  });

  it('plans prepared statements once when the transaction asks for generic plans', async () => {
    const sent: string[] = [];
    const prepared = new TransactionRunner(fakeDataSource([], sent), 'memory_app', {
      preparedStatements: true,
    });
    await prepared.inTenant(scope, async () => undefined, { genericPlans: true });
    await prepared.inTenant(scope, async () => undefined);
    // Embedded mode prepares nothing: the setting would have nothing to act on.
    await new TransactionRunner(fakeDataSource([], sent), 'memory_app').inTenant(
      scope,
      async () => undefined,
      {
        genericPlans: true,
      },
    );
    const openings = sent.filter((statement) => statement.startsWith('BEGIN'));
    expect(openings).toHaveLength(3);
    expect(openings[0]).toContain(`set_config('plan_cache_mode', 'force_generic_plan', true)`);
    expect(openings[1]).not.toContain('plan_cache_mode');
    expect(openings[2]).not.toContain('plan_cache_mode');
  });
});
