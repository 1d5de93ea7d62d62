import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CreateMemoryUseCase, ExpireMemoriesUseCase } from '@app/memories';
import { MemoryWriteRepository } from '@app/memories/testing';
import { AuditWriter, type Principal } from '@app/tenancy';
import {
  createTestTenant,
  memberPrincipal,
  newMemory,
  openTestDatabase,
  type TestDatabase,
} from '@app/testing';
import { memoryWriterFor } from '../../../test/support/memory-writes';

const limits = { maxContentBytes: 4096, maxImportBatch: 100, maxListLimit: 100 };

/**
 * `proposal_auto_accept_hours`: the expiry sweep accepts a proposal nobody rejected in time, in the
 * tenants that set it only, and audits each as an automatic acceptance.
 */
describe('proposals accepted after the tenant’s period', () => {
  let db: TestDatabase;
  let create: CreateMemoryUseCase;

  const sql = async <T>(text: string, params: unknown[] = []) =>
    (await db.tx.asSystem((tx) => tx.query<T>(text, params))).rows;
  /** Alice's team memory and bob's proposed correction of it, proposed `hoursAgo` hours ago. */
  const proposalIn = async (prefix: string, hoursAgo: number, autoAccept: number | null) => {
    const tenant = await createTestTenant(db, prefix);
    await sql(`UPDATE tenants SET proposal_auto_accept_hours = $2 WHERE id = $1`, [
      tenant.tenantId,
      autoAccept,
    ]);
    const alice: Principal = await memberPrincipal(tenant, 'alice');
    const bob: Principal = await memberPrincipal(tenant, 'bob');
    const fact = await create.execute(
      alice,
      newMemory(`${prefix}: deploys run on Jenkins`, { visibility: 'team' }),
    );
    const proposal = await create.execute(
      bob,
      newMemory(`${prefix}: deploys run on GitHub Actions`, { supersedes: fact.id }),
    );
    expect(proposal.reviewState).toBe('proposed');
    await sql(`UPDATE memories SET created_at = now() - make_interval(hours => $2) WHERE id = $1`, [
      proposal.id,
      hoursAgo,
    ]);
    return proposal.id;
  };
  const stateOf = async (id: number) =>
    (await sql<{ review_state: string }>(`SELECT review_state FROM memories WHERE id = $1`, [id]))[0]
      .review_state;

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 4);
    create = new CreateMemoryUseCase(await memoryWriterFor(db.tx, limits));
  });
  afterAll(async () => db?.close());

  it('accepts an overdue proposal where the tenant set a period, and nothing anywhere else', async () => {
    const overdue = await proposalIn('auto-due', 3, 2);
    const early = await proposalIn('auto-early', 1, 2);
    const never = await proposalIn('auto-off', 500, null);
    const sweep = new ExpireMemoriesUseCase(db.tx, new MemoryWriteRepository(), new AuditWriter());
    expect(await sweep.acceptOverdueProposals()).toBeGreaterThanOrEqual(1);
    expect([await stateOf(overdue), await stateOf(early), await stateOf(never)]).toEqual([
      'accepted',
      'proposed',
      'proposed',
    ]);
    const audit = await sql<{ action: string; actor_id: string | null; details: Record<string, unknown> }>(
      `SELECT action, actor_id, details FROM audit_log WHERE target_id = $1 AND action = 'memory.accept'`,
      [String(overdue)],
    );
    expect(audit).toEqual([
      { action: 'memory.accept', actor_id: null, details: { automatic: true, via: 'worker' } },
    ]);
  });
});
