import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import {
  ApplyCodeEventUseCase,
  CreateMemoryUseCase,
  GetMemoryUseCase,
  MemoryError,
  MemoryErrorCode,
  PurgeCodeEventsUseCase,
  RecordCodeEventUseCase,
  UpdateMemoryUseCase,
  VerifyMemoryUseCase,
  type CodeChange,
  type NewAnchor,
  type NewMemory,
} from '@app/memories';
import { CodeEventRepository, MemoryReadRepository } from '@app/memories/testing';
import { OutboxWriter } from '@app/jobs';
import { deriveKeyEncryptionKey, LocalSecretStore } from '@app/secrets/testing';
import { type Principal } from '@app/tenancy';
import {
  createTestTenant,
  memberPrincipal,
  newMemory,
  openTestDatabase,
  type TestDatabase,
} from '@app/testing';
import { memoryWritePartsFor } from '../../../test/support/memory-writes';

const limits = { maxContentBytes: 4096, maxImportBatch: 100, maxListLimit: 100 };
const REPO = 'github.com/acme/pay';
const hash = (n: number) => n.toString(16).padStart(40, '0');

/**
 * Anchors and code events against real Postgres: anchors written with their memory, code events
 * applied as the worker applies them (stale, orphaned, moved; once, in order), verify, and the
 * row-level security of `memory_anchors` and `code_events` (migration 1763700000050).
 */
describe('code anchors against real Postgres', () => {
  let db: TestDatabase;
  let alice: Principal;
  let bob: Principal;
  let dave: Principal;
  let create: CreateMemoryUseCase;
  let update: UpdateMemoryUseCase;
  let get: GetMemoryUseCase;
  let record: RecordCodeEventUseCase;
  let apply: ApplyCodeEventUseCase;
  let verify: VerifyMemoryUseCase;
  let purge: PurgeCodeEventsUseCase;

  const store = async (
    who: Principal,
    content: string,
    anchors: NewAnchor[],
    extra: Partial<NewMemory> = {},
  ) =>
    (await create.execute(who, newMemory(content, { visibility: 'team', project: REPO, anchors, ...extra })))
      .id;
  const anchorsOf = async (who: Principal, id: number) => (await get.withLinks(who, id)).memory.anchors ?? [];
  const report = async (who: Principal, changes: CodeChange[], repo = REPO, after = 'abc1234') => {
    const event = await record.execute(who, {
      repo,
      branch: 'main',
      after,
      merged: false,
      branchDeleted: false,
      changes,
    });
    return { event, changed: await apply.execute(who.tenantId, event.id) };
  };
  const codeOf = async (work: Promise<unknown>) => {
    const error = await work.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(MemoryError);
    return (error as MemoryError).code;
  };

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 4);
    const tenant = await createTestTenant(db, 'anchors');
    alice = await memberPrincipal(tenant, 'alice');
    bob = await memberPrincipal(tenant, 'bob');
    dave = await memberPrincipal(await createTestTenant(db, 'anchors-other'), 'dave');
    const secrets = new LocalSecretStore(deriveKeyEncryptionKey(randomBytes(32).toString('hex')));
    const parts = await memoryWritePartsFor(db.tx, limits, secrets, { defaultVisibility: 'team' });
    create = new CreateMemoryUseCase(parts.writer);
    update = new UpdateMemoryUseCase(parts.writer);
    const reads = new MemoryReadRepository();
    get = new GetMemoryUseCase(db.tx, reads);
    const events = new CodeEventRepository();
    record = new RecordCodeEventUseCase(db.tx, events, new OutboxWriter());
    apply = new ApplyCodeEventUseCase(db.tx, events);
    verify = new VerifyMemoryUseCase(db.tx, reads, parts.update, parts.writer);
    purge = new PurgeCodeEventsUseCase(db.tx, events);
  });
  afterAll(async () => db?.close());

  it('a memory keeps its anchors in order, in the memory’s project unless an anchor names another', async () => {
    const id = await store(alice, 'The retry in src/pay.ts must stay idempotent', [
      {
        path: 'src/pay.ts',
        symbol: 'retryCharge',
        lines: { start: 10, end: 42 },
        commit: 'abc1234',
        hash: hash(1),
      },
      { repo: 'github.com/acme/ledger', path: 'lib/ledger.ts' },
    ]);
    expect(await anchorsOf(bob, id)).toEqual([
      {
        repo: REPO,
        path: 'src/pay.ts',
        symbol: 'retryCharge',
        lines: { start: 10, end: 42 },
        commit: 'abc1234',
        hash: hash(1),
        state: 'current',
        change: null,
      },
      {
        repo: 'github.com/acme/ledger',
        path: 'lib/ledger.ts',
        symbol: null,
        lines: null,
        commit: null,
        hash: null,
        state: 'current',
        change: null,
      },
    ]);
    // Without a project, an anchor must name its repository.
    expect(
      await codeOf(create.execute(alice, newMemory('No project here', { anchors: [{ path: 'a.ts' }] }))),
    ).toBe(MemoryErrorCode.InvalidInput);
  });

  it('a change to an anchored file makes it stale, with which event, to which blob and commit; once', async () => {
    const id = await store(alice, 'Webhook handler dedupes by event id', [
      { path: 'src/webhooks.ts', hash: hash(2) },
    ]);
    const untouched = await store(alice, 'Refunds go through the ledger', [
      { path: 'src/refunds.ts', hash: hash(3) },
    ]);
    const { event, changed } = await report(bob, [
      { path: 'src/webhooks.ts', status: 'modified', hash: hash(22) },
    ]);
    expect(changed).toBe(1);
    const [anchor] = await anchorsOf(alice, id);
    expect(anchor).toMatchObject({
      state: 'stale',
      hash: hash(2),
      change: { eventId: event.id, hash: hash(22), commit: 'abc1234' },
    });
    expect((await anchorsOf(alice, untouched))[0].state).toBe('current');
    // The job ran again (a retry): nothing more happens.
    expect(await apply.execute(bob.tenantId, event.id)).toBeNull();
    // Reporting the blob it was written against again (a revert) makes it current.
    expect(
      (await report(bob, [{ path: 'src/webhooks.ts', status: 'modified', hash: hash(2) }])).changed,
    ).toBe(1);
    expect((await anchorsOf(alice, id))[0]).toMatchObject({ state: 'current', change: null });
    // Two events applied out of order (a retried job): the older change must not undo the newer revert.
    const reported = (h: string) =>
      record.execute(bob, {
        repo: REPO,
        merged: false,
        branchDeleted: false,
        changes: [{ path: 'src/webhooks.ts', status: 'modified', hash: h }],
      });
    const older = await reported(hash(23));
    const newer = await reported(hash(2));
    expect(await apply.execute(bob.tenantId, newer.id)).toBe(0);
    expect(await apply.execute(bob.tenantId, older.id)).toBe(0);
    expect((await anchorsOf(alice, id))[0]).toMatchObject({ state: 'current', change: null });
  });

  it('a change on a feature branch concerns that branch’s memories only; the mainline’s concerns the project’s', async () => {
    const project = await store(alice, 'Rates are cached for an hour', [
      { path: 'src/rates.ts', hash: hash(14) },
    ]);
    const onBranch = await store(
      alice,
      'On the rates branch the cache is per tenant',
      [{ path: 'src/rates.ts', hash: hash(14) }],
      {
        branch: 'feature/rates',
      },
    );
    const local = await record.execute(bob, {
      repo: REPO,
      branch: 'feature/rates',
      merged: false,
      branchDeleted: false,
      changes: [{ path: 'src/rates.ts', status: 'modified', hash: hash(140) }],
    });
    expect(await apply.execute(bob.tenantId, local.id)).toBe(1);
    expect((await anchorsOf(alice, project))[0].state).toBe('current');
    expect((await anchorsOf(alice, onBranch))[0].state).toBe('stale');
    expect((await report(bob, [{ path: 'src/rates.ts', status: 'modified', hash: hash(141) }])).changed).toBe(
      1,
    );
    expect((await anchorsOf(alice, project))[0].state).toBe('stale');
  });

  it('a rename moves the anchor (stale only when the content changed too); a deletion orphans it', async () => {
    const same = await store(alice, 'Config loader reads env once', [
      { path: 'src/config.ts', hash: hash(4) },
    ]);
    const edited = await store(alice, 'Logger redacts tokens', [{ path: 'src/log.ts', hash: hash(5) }]);
    const gone = await store(alice, 'The cron runner is single-instance', [{ path: 'src/cron.ts' }]);
    await report(alice, [
      { path: 'lib/config.ts', from: 'src/config.ts', status: 'renamed', hash: hash(4) },
      { path: 'lib/log.ts', from: 'src/log.ts', status: 'renamed', hash: hash(55) },
      { path: 'src/cron.ts', status: 'deleted', hash: null },
    ]);
    expect((await anchorsOf(bob, same))[0]).toMatchObject({ path: 'lib/config.ts', state: 'current' });
    expect((await anchorsOf(bob, edited))[0]).toMatchObject({ path: 'lib/log.ts', state: 'stale' });
    expect((await anchorsOf(bob, gone))[0]).toMatchObject({ path: 'src/cron.ts', state: 'orphaned' });
    const detail = await get.withLinks(bob, gone);
    expect(detail.memory.anchors?.[0].change).toMatchObject({ hash: null });
  });

  it('another tenant’s event for the same repository and path changes nothing here', async () => {
    const id = await store(alice, 'Invoices are immutable once sent', [
      { path: 'src/invoice.ts', hash: hash(6) },
    ]);
    const { changed } = await report(dave, [{ path: 'src/invoice.ts', status: 'modified', hash: hash(66) }]);
    expect(changed).toBe(0);
    expect((await anchorsOf(alice, id))[0].state).toBe('current');
    // Nor can it read this tenant's anchors or events.
    const seen = await db.tx.inTenant(dave, async (tx) => {
      const anchors = await tx.query(`SELECT 1 FROM memory_anchors WHERE memory_id = $1`, [id]);
      const events = await tx.query(`SELECT 1 FROM code_events WHERE tenant_id = $1`, [alice.tenantId]);
      return anchors.rows.length + events.rows.length;
    });
    expect(seen).toBe(0);
  });

  it('an event older than the anchor (written or verified after it) does not make it stale', async () => {
    const event = await record.execute(bob, {
      repo: REPO,
      merged: false,
      branchDeleted: false,
      changes: [{ path: 'src/late.ts', status: 'modified', hash: hash(77) }],
    });
    const id = await store(alice, 'Late binding is on purpose', [{ path: 'src/late.ts', hash: hash(7) }]);
    expect(await apply.execute(bob.tenantId, event.id)).toBe(0);
    expect((await anchorsOf(alice, id))[0].state).toBe('current');
  });

  it('verify makes a stale memory current at the changed code, records a version, and drops orphaned anchors', async () => {
    const id = await store(alice, 'Amounts are integers in cents', [
      { path: 'src/money.ts', hash: hash(8), commit: 'aaaaaaa' },
      { path: 'src/old.ts', hash: hash(9) },
    ]);
    await report(
      bob,
      [
        { path: 'src/money.ts', status: 'modified', hash: hash(88) },
        { path: 'src/old.ts', status: 'deleted', hash: null },
      ],
      REPO,
      'bbbbbbb',
    );
    expect((await get.withLinks(alice, id)).memory.anchors?.map((a) => a.state)).toEqual([
      'stale',
      'orphaned',
    ]);
    // A teammate may read it but not change it: confirming is not theirs; correcting is a proposal.
    expect(await codeOf(verify.execute(bob, id))).toBe(MemoryErrorCode.Forbidden);
    expect(await verify.execute(alice, id)).toEqual({ verified: id, anchors: 1 });
    expect(await anchorsOf(bob, id)).toEqual([
      expect.objectContaining({
        path: 'src/money.ts',
        hash: hash(88),
        commit: 'bbbbbbb',
        state: 'current',
        change: null,
      }),
    ]);
    const versions = await db.tx.inTenant(alice, (tx) =>
      tx.query<{ changed_fields: string[] }>(
        `SELECT changed_fields FROM memory_versions WHERE memory_id = $1`,
        [id],
      ),
    );
    expect(versions.rows.map((r) => r.changed_fields)).toEqual([['anchors']]);
    const audit = await db.tx.inTenant(alice, (tx) =>
      tx.query<{ action: string }>(`SELECT action FROM audit_log WHERE target_id = $1 ORDER BY id`, [
        String(id),
      ]),
    );
    expect(audit.rows.map((r) => r.action)).toContain('memory.verify');
    // The verified code reported again changes nothing.
    expect((await report(bob, [{ path: 'src/money.ts', status: 'modified', hash: hash(88) }])).changed).toBe(
      0,
    );
  });

  it('a teammate’s correction through verify is a proposal, anchored to the code as it is now', async () => {
    const id = await store(alice, 'Sessions expire after 30 minutes', [
      { path: 'src/session.ts', hash: hash(10) },
    ]);
    await report(bob, [{ path: 'src/session.ts', status: 'modified', hash: hash(100) }]);
    const outcome = await verify.execute(bob, id, { correction: 'Sessions expire after 60 minutes' });
    expect(outcome).toMatchObject({ corrected: id, by: { reviewState: 'proposed' } });
    const proposal = 'by' in outcome ? outcome.by.id : 0;
    expect((await anchorsOf(bob, proposal))[0]).toMatchObject({
      path: 'src/session.ts',
      hash: hash(100),
      state: 'current',
    });
    // Nothing to verify against without anchors (409); what the caller cannot see is 404.
    const plain = await store(alice, 'No code here', []);
    expect(await codeOf(verify.execute(alice, plain))).toBe(MemoryErrorCode.NotAnchored);
    expect(await codeOf(verify.execute(dave, id))).toBe(MemoryErrorCode.NotFound);
  });

  it('an update replaces the anchors ([] removes them) and keeps the previous state as a version', async () => {
    const id = await store(alice, 'Feature flags live in flags.ts', [{ path: 'src/flags.ts' }]);
    await update.execute(alice, id, { anchors: [{ path: 'src/flags/index.ts', hash: hash(11) }] });
    expect((await anchorsOf(alice, id)).map((a) => a.path)).toEqual(['src/flags/index.ts']);
    await update.execute(alice, id, { anchors: [] });
    expect(await anchorsOf(alice, id)).toEqual([]);
    const versions = await db.tx.inTenant(alice, (tx) =>
      tx.query<{ changed_fields: string[] }>(
        `SELECT changed_fields FROM memory_versions WHERE memory_id = $1 ORDER BY version`,
        [id],
      ),
    );
    expect(versions.rows.map((r) => r.changed_fields)).toEqual([['anchors'], ['anchors']]);
  });

  it('applied events past their retention are deleted; the anchors they changed keep the change', async () => {
    const id = await store(alice, 'Backoff caps at one minute', [{ path: 'src/backoff.ts', hash: hash(12) }]);
    const { event } = await report(bob, [{ path: 'src/backoff.ts', status: 'modified', hash: hash(120) }]);
    const queued = await record.execute(bob, {
      repo: REPO,
      merged: false,
      branchDeleted: false,
      changes: [{ path: 'src/queued.ts', status: 'modified', hash: hash(13) }],
    });
    await db.tx.asSystem((tx) =>
      tx.query(
        `UPDATE code_events SET created_at = now() - interval '40 days' WHERE id = ANY($1::bigint[])`,
        [[event.id, queued.id]],
      ),
    );
    expect(await purge.execute(30)).toBeGreaterThanOrEqual(1);
    const left = await db.tx.asSystem((tx) =>
      tx.query<{ id: string }>(`SELECT id FROM code_events WHERE id = ANY($1::bigint[])`, [
        [event.id, queued.id],
      ]),
    );
    // Not applied yet: kept, whatever its age.
    expect(left.rows.map((r) => Number(r.id))).toEqual([queued.id]);
    expect((await anchorsOf(alice, id))[0]).toMatchObject({
      state: 'stale',
      change: { eventId: null, hash: hash(120), commit: 'abc1234' },
    });
  });

  it('anchors of a private memory are as private as the memory', async () => {
    const id = await store(alice, 'My local notes on the retry', [{ path: 'src/pay.ts' }], {
      visibility: 'private',
    });
    const rows = await db.tx.inTenant(bob, (tx) =>
      tx.query(`SELECT 1 FROM memory_anchors WHERE memory_id = $1`, [id]),
    );
    expect(rows.rows).toEqual([]);
    // Bob cannot anchor someone's memory he cannot see, even directly.
    const direct = await db.tx
      .inTenant(bob, (tx) =>
        tx.query(
          `INSERT INTO memory_anchors (tenant_id, memory_id, ordinal, repo, path) VALUES ($1, $2, 5, $3, 'x.ts')`,
          [bob.tenantId, id, REPO],
        ),
      )
      .then(
        () => 'ok',
        (e: { code?: string }) => e.code,
      );
    expect(direct).toBe('42501');
    // Nor anchor, re-anchor or unanchor a teammate's team memory he may read but not change.
    const team = await store(alice, 'Team fact about src/team.ts', [{ path: 'src/team.ts' }]);
    const as = (who: Principal, sql: string) =>
      db.tx
        .inTenant(who, (tx) => tx.query(sql, [who.tenantId, team, REPO]))
        .then(
          (r) => `ok:${r.rowCount}`,
          (e: { code?: string }) => e.code,
        );
    expect(
      await as(
        bob,
        `INSERT INTO memory_anchors (tenant_id, memory_id, ordinal, repo, path) VALUES ($1, $2, 5, $3, 'x.ts')`,
      ),
    ).toBe('42501');
    const touch = `UPDATE memory_anchors SET path = 'y.ts' WHERE tenant_id = $1 AND memory_id = $2 AND repo = $3`;
    const drop = `DELETE FROM memory_anchors WHERE tenant_id = $1 AND memory_id = $2 AND repo = $3`;
    expect(await as(bob, touch)).toBe('ok:0');
    expect(await as(bob, drop)).toBe('ok:0');
    expect((await anchorsOf(bob, team)).map((a) => a.path)).toEqual(['src/team.ts']);
    expect(await as(alice, touch)).toBe('ok:1');
  });
});
