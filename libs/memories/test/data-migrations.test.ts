import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CanonicalCategories1763700000043, ProjectIdentity1763700000042 } from '@app/migrations';
import type { MigrationInterface } from 'typeorm';
import { CreateMemoryUseCase, ListMemoriesUseCase } from '@app/memories';
import { MemoryReadRepository } from '@app/memories/testing';
import { StartSessionUseCase } from '@app/sessions';
import { SessionRepository, SessionScreen } from '@app/sessions/testing';
import { SecretDetector } from '@app/secrets';
import type { Principal } from '@app/tenancy';
import {
  createTestTenant,
  memberPrincipal,
  newMemory,
  openTestDatabase,
  type TestDatabase,
} from '@app/testing';
import { memoryWriterFor } from '../../../test/support/memory-writes';

const limits = { maxContentBytes: 4096, maxImportBatch: 10, maxListLimit: 100 };

describe('data migrations: rows written before a rule get what the rule gives new ones', () => {
  let db: TestDatabase;
  let alice: Principal;
  let create: CreateMemoryUseCase;
  let list: ListMemoriesUseCase;
  const repo = `acme-${randomUUID().slice(0, 8)}/billing`;

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 4);
    alice = await memberPrincipal(await createTestTenant(db), 'alice');
    create = new CreateMemoryUseCase(await memoryWriterFor(db.tx, limits));
    list = new ListMemoriesUseCase(db.tx, new MemoryReadRepository(), limits);
  });

  afterAll(async () => {
    await db?.close();
  });

  /** Writes `project` into the row as an older release stored it (raw, as the client sent it). */
  const setRaw = (table: 'memories' | 'sessions', id: number | string, project: string) =>
    db.tx.asSystem((tx) => tx.query(`UPDATE ${table} SET project = $1 WHERE id = $2`, [project, id]));

  const runMigration = async (migration: MigrationInterface = new ProjectIdentity1763700000042()) => {
    const runner = db.dataSource.createQueryRunner();
    await runner.startTransaction();
    try {
      await migration.up(runner);
      await runner.commitTransaction();
    } finally {
      await runner.release();
    }
  };

  it('042 turns every form of a git remote into its identity, in memories and sessions, and keeps other names', async () => {
    const forms = [
      `git@github.com:${repo}.git`,
      `https://github.com/${repo}`,
      `ssh://git@github.com/${repo}.git`,
    ];
    const ids: number[] = [];
    for (const [i, form] of forms.entries()) {
      const { id } = await create.execute(
        alice,
        newMemory(`billing fact ${i} ${repo}`, { project: 'placeholder' }),
      );
      await setRaw('memories', id, form);
      ids.push(id);
    }
    const plain = await create.execute(
      alice,
      newMemory(`billing plain ${repo}`, { project: `Billing ${repo}` }),
    );
    const session = await new StartSessionUseCase(
      db.tx,
      new SessionRepository(),
      new SessionScreen(new SecretDetector()),
    ).execute(alice, { agent: 'claude-code', project: 'placeholder' });
    await setRaw('sessions', session.id, forms[0]);
    const before = await db.tx.asSystem((tx) =>
      tx.query<{ updated_at: Date }>(`SELECT updated_at FROM memories WHERE id = ANY($1) ORDER BY id`, [ids]),
    );

    // Before: a filter by the identity finds none of them.
    const identity = `github.com/${repo}`;
    expect((await list.execute(alice, { project: identity, limit: 10, offset: 0 })).memories).toEqual([]);

    await runMigration();

    const found = await list.execute(alice, { project: identity, limit: 10, offset: 0 });
    expect(found.memories.map((m) => m.id).sort()).toEqual([...ids].sort());
    const rows = await db.tx.asSystem(async (tx) => ({
      plain: (await tx.query<{ project: string }>(`SELECT project FROM memories WHERE id = $1`, [plain.id]))
        .rows,
      session: (
        await tx.query<{ project: string }>(`SELECT project FROM sessions WHERE id = $1`, [session.id])
      ).rows,
      updated: (
        await tx.query<{ updated_at: Date }>(
          `SELECT updated_at FROM memories WHERE id = ANY($1) ORDER BY id`,
          [ids],
        )
      ).rows,
    }));
    expect(rows.plain).toEqual([{ project: `Billing ${repo}` }]);
    expect(rows.session).toEqual([{ project: identity }]);
    expect(rows.updated).toEqual(before.rows);

    // Running it again changes nothing.
    await runMigration();
    expect((await list.execute(alice, { project: identity, limit: 10, offset: 0 })).total).toBe(3);
  });

  it('043 folds the canonical categories’ singulars and any case into one name, and keeps custom ones', async () => {
    const stored: Array<[number, string]> = [];
    const raw = ['fact', 'Decision', 'DECISIONS', 'decisions', 'note', 'Architecture', 'runbook-old'];
    for (const [i, category] of raw.entries()) {
      const { id } = await create.execute(alice, newMemory(`category case ${i} ${repo}`));
      await db.tx.asSystem((tx) =>
        tx.query(`UPDATE memories SET category = $1 WHERE id = $2`, [category, id]),
      );
      stored.push([id, category]);
    }
    await runMigration(new CanonicalCategories1763700000043());
    const { rows } = await db.tx.asSystem((tx) =>
      tx.query<{ id: string; category: string }>(
        `SELECT id, category FROM memories WHERE id = ANY($1) ORDER BY id`,
        [stored.map(([id]) => id)],
      ),
    );
    expect(rows.map((r) => r.category)).toEqual([
      'facts',
      'decisions',
      'decisions',
      'decisions',
      'notes',
      'architecture',
      'runbook-old',
    ]);
    // A filter by any spelling finds them under the one name.
    const decisions = await list.execute(alice, { category: 'Decision', limit: 10, offset: 0 });
    expect(decisions.memories.filter((m) => m.content.endsWith(repo)).map((m) => m.category)).toEqual([
      'decisions',
      'decisions',
      'decisions',
    ]);
  });
});
