import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SecretDetector } from '@app/secrets';
import { StartSessionUseCase } from '@app/sessions';
import { SessionRepository, SessionScreen } from '@app/sessions/testing';
import { QuotaError, type Principal } from '@app/tenancy';
import { createTestTenant, memberPrincipal, openTestDatabase, type TestDatabase } from '@app/testing';

/** The sessions-per-day quota, checked by the session's own INSERT. */
describe('sessions per day quota', () => {
  let db: TestDatabase;
  let start: StartSessionUseCase;

  const member = async (maxSessionsPerDay: number): Promise<Principal> => {
    const tenant = await createTestTenant(db, `sq-${randomUUID().slice(0, 8)}`);
    const principal = await memberPrincipal(tenant, 'alice');
    return { ...principal, quotas: { maxMemories: 0, maxMemoryBytes: 0, maxSessionsPerDay } };
  };
  const count = async (who: Principal) =>
    (
      (await db.dataSource.query(`SELECT count(*)::int AS n FROM sessions WHERE tenant_id = $1`, [
        who.tenantId,
      ])) as Array<{ n: number }>
    )[0].n;

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 4);
    start = new StartSessionUseCase(db.tx, new SessionRepository(), new SessionScreen(new SecretDetector()));
  });
  afterAll(async () => db?.close());

  it('refuses the session past the quota with 429 quota_exceeded and Retry-After until midnight UTC', async () => {
    const alice = await member(2);
    const first = await start.execute(alice, { agent: 'claude-code', id: randomUUID() });
    await start.execute(alice, { agent: 'claude-code' });
    const error = await start.execute(alice, { agent: 'claude-code' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(QuotaError);
    expect(error).toMatchObject({ code: 'quota_exceeded', kind: 'too_many_requests' });
    expect((error as Error).message).toMatch(/started 2 of 2 sessions today \(UTC\)/);
    const retryAfter = (error as QuotaError).retryAfterSeconds ?? 0;
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    expect(await count(alice)).toBe(2);
    // A hook repeating the start of a session it already has still gets it.
    expect(await start.execute(alice, { agent: 'claude-code', id: first.id })).toMatchObject({
      id: first.id,
      created: false,
    });
  });

  it('counts only today’s sessions of the tenant', async () => {
    const alice = await member(1);
    const bob = await member(1);
    const { id } = await start.execute(alice, { agent: 'claude-code' });
    // Yesterday's session does not count against today.
    await db.dataSource.query(`UPDATE sessions SET created_at = now() - interval '1 day' WHERE id = $1`, [
      id,
    ]);
    await start.execute(alice, { agent: 'claude-code' });
    // Another tenant has its own count.
    await start.execute(bob, { agent: 'claude-code' });
    expect(await count(alice)).toBe(2);
  });
});
