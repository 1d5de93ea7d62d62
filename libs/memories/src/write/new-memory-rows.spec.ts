import { describe, expect, it, vi } from 'vitest';
import type { Tx } from '@app/persistence';
import { QuotaErrorCode } from '@app/tenancy';
import { AuditWriter } from '@app/tenancy';
import { specPrincipal, useCaseWithFakes } from '@app/testing';
import { contentHash, sensitiveContentHash } from '../domain/content-rules';
import type { NewMemory } from '../domain/memory';
import { MemoryReadRepository } from '../read-model/memory-read.repository';
import { MemoryIndexing } from './memory-indexing';
import { MEMORY_DEFAULTS, MEMORY_LIMITS, type MemoryDefaults } from './memory-limits';
import { MemoryLinkWriter } from './memory-link-writer';
import { MemoryWriteRepository } from './memory-write.repository';
import { NewMemoryRows, TeamProbeNeeded } from './new-memory-rows';
import { SecretScreen } from './secret-screen';
import { SecretStaging, type StagedSecret } from './secret-staging';
import type { TeamDuplicate } from '../read-model/memory-filter.sql';
import { TeamDuplicateProbeSlot, type NearDuplicateCandidate } from './team-duplicates.port';
import { AnchorWriteRepository } from './anchor-write.repository';

const tx = { fake: 'tx' } as unknown as Tx;
const memory = (content: string, extra: Partial<NewMemory> = {}): NewMemory => ({
  content,
  category: 'fact',
  tags: [],
  expandedKeywords: '',
  importance: 0.5,
  project: null,
  ...extra,
});
const STAGED: StagedSecret = {
  memoryId: 77,
  secret: { ref: 'secret/data/t1/alice/77', version: 1 },
  newMemory: true,
  intentId: 'intent-77',
};

/** NewMemoryRows with its ports faked; `insert` answers what the row statement would. */
async function rowsWith(
  options: {
    insert?: () => Promise<unknown>;
    usage?: { memories: number; bytes: number };
    defaults?: MemoryDefaults;
    teamDuplicate?: TeamDuplicate;
    /** Whether the write's check finds teammates sharing team memories (default: yes). */
    teammates?: boolean;
    near?: NearDuplicateCandidate[];
    targetWritable?: boolean;
  } = {},
) {
  const writes = {
    insertOrGetDuplicate: vi.fn(
      options.insert ?? (async () => ({ id: 10, category: 'fact', importance: 0.5, created: true })),
    ),
    teamDuplicate: vi.fn(async () => ({
      duplicate: options.teamDuplicate ?? null,
      teammates: options.teammates ?? true,
    })),
    endorse: vi.fn(async () => undefined),
  };
  const audit = { statement: () => ({ sql: 'audit', params: [] }), record: vi.fn(async () => undefined) };
  const probe = {
    candidatesOfEach: vi.fn(async (_principal: unknown, contents: readonly string[]) =>
      contents.map(() => options.near ?? []),
    ),
  };
  const links = { link: vi.fn(async () => undefined) };
  const staging = { stage: vi.fn(async () => STAGED), confirm: vi.fn(async () => undefined) };
  const anchors = { replace: vi.fn(async () => undefined) };
  const rows = await useCaseWithFakes(NewMemoryRows, [
    [MemoryWriteRepository, writes],
    [
      MemoryReadRepository,
      {
        usage: async () => options.usage ?? { memories: 0, bytes: 0 },
        // The memory a correction names: the caller's own unless a test says otherwise.
        access: async () => ({
          ownerId: 'alice',
          deleted: false,
          readable: true,
          writable: options.targetWritable ?? true,
          shared: false,
          team: true,
          reviewState: 'accepted',
        }),
      },
    ],
    [MemoryIndexing, { statements: () => [{ sql: 'index', params: [] }] }],
    [AuditWriter, audit],
    [
      SecretScreen,
      {
        screenNew: (m: NewMemory) =>
          m.content.includes('hunter2')
            ? {
                value: { ...m, content: m.content.replace('hunter2', '[REDACTED:password]') },
                kinds: ['password'],
                secret: m.content,
              }
            : { value: m, kinds: [], secret: null },
      },
    ],
    [SecretStaging, staging],
    [MemoryLinkWriter, links],
    [MEMORY_LIMITS, { maxContentBytes: 64, maxImportBatch: 10, maxListLimit: 100 }],
    [MEMORY_DEFAULTS, options.defaults ?? { defaultVisibility: 'team', ttlByCategory: { scratch: 60_000 } }],
    [TeamDuplicateProbeSlot, { probe }],
    [AnchorWriteRepository, anchors],
  ]);
  const store = async (m: NewMemory, last = false, principal = specPrincipal('alice')) =>
    rows.store(principal, tx, await rows.prepare(principal, rows.screenNew(m)), last);
  const inserted = () =>
    writes.insertOrGetDuplicate.mock.calls.at(-1) as unknown as [
      unknown,
      Tx,
      Record<string, unknown>,
      unknown,
      unknown[],
      { last: boolean },
    ];
  return { rows, store, inserted, links, staging, writes, audit, probe, anchors };
}

describe('NewMemoryRows (ports faked)', () => {
  it('refuses content over the size limit before anything is screened or written', async () => {
    const { rows } = await rowsWith();
    expect(() => rows.screenNew(memory('x'.repeat(65)))).toThrow(/64/);
  });

  it('writes a correction as a new row linked to the memory it supersedes, with write access asked for', async () => {
    const { store, inserted, links } = await rowsWith();
    await store(memory('we deploy on Thursdays now', { supersedes: 4 }), true);
    // Something follows the row (the link): its statement must not carry the commit.
    expect(inserted()[5]).toEqual({ last: false });
    expect(links.link).toHaveBeenCalledWith(
      expect.objectContaining({ userId: 'alice' }),
      tx,
      { srcId: 10, dstId: 4, linkType: 'supersedes' },
      { ifExists: 'keep', target: 'write' },
    );
  });

  it('lets a plain row carry the commit when asked, with its index job and audit entry in the statement', async () => {
    const { store, inserted, links } = await rowsWith();
    await store(memory('plain'), true);
    const [, , row, , followers, options] = inserted();
    // A team memory (the default here), probed: its statement checks for a teammate's duplicate too.
    expect(options).toEqual({ last: true, team: { near: [] } });
    expect(followers.map((f) => (f as { sql: string }).sql)).toEqual(['index', 'audit']);
    expect(row.contentHash).toEqual(contentHash('plain'));
    expect(links.link).not.toHaveBeenCalled();
  });

  it('stores a secret first and keeps only the redacted text, under the reserved id, never as a duplicate', async () => {
    const { store, inserted, staging } = await rowsWith();
    await store(memory('db password hunter2'), true);
    const [, , row, , , options] = inserted();
    expect(staging.stage).toHaveBeenCalledWith(expect.anything(), 'db password hunter2');
    expect(row).toMatchObject({ content: 'db password [REDACTED:password]', id: 77, secret: STAGED.secret });
    expect(row.contentHash).toEqual(sensitiveContentHash(77));
    expect(options).toEqual({ last: false });
    expect(staging.confirm).toHaveBeenCalledWith(expect.anything(), tx, [STAGED]);
  });

  it("takes the key's visibility over the configured default, and the category's lifetime", async () => {
    const { store, inserted } = await rowsWith();
    await store(memory('a'), false, { ...specPrincipal('alice'), defaultVisibility: 'private' });
    expect(inserted()[2].visibility).toBe('private');
    const before = Date.now();
    await store(memory('b', { category: 'scratch' }));
    expect(inserted()[2].visibility).toBe('team');
    const expiresAt = (inserted()[2].expiresAt as Date).getTime();
    expect(expiresAt).toBeGreaterThanOrEqual(before + 60_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 60_000);
  });

  it('says which quota refused the row, with the current use', async () => {
    const alice = {
      ...specPrincipal('alice'),
      quotas: { maxMemories: 5, maxMemoryBytes: 1000, maxSessionsPerDay: 0 },
    };
    const refusedBy = async (usage: { memories: number; bytes: number }) => {
      const { store } = await rowsWith({ insert: async () => ({ created: false, id: null }), usage });
      return store(memory('twelve bytes'), false, alice as never).catch((error: unknown) => error);
    };
    expect(await refusedBy({ memories: 5, bytes: 10 })).toMatchObject({ code: QuotaErrorCode.QuotaExceeded });
    expect(await refusedBy({ memories: 2, bytes: 995 })).toMatchObject({
      code: QuotaErrorCode.StorageQuotaExceeded,
    });
  });

  it('passes the quota to the row statement only when one applies', async () => {
    const { store, inserted } = await rowsWith();
    await store(memory('unlimited'));
    expect(inserted()[3]).toBeUndefined();
    const limited = {
      ...specPrincipal('alice'),
      quotas: { maxMemories: 5, maxMemoryBytes: 0, maxSessionsPerDay: 3 },
    };
    await store(memory('limited'), false, limited);
    expect(inserted()[3]).toEqual({ maxMemories: 5, maxMemoryBytes: 0 });
  });

  it('answers a teammate’s team memory that says the same, endorsed and audited, and writes no row', async () => {
    const near = [{ id: 41, similarity: 0.95 }];
    const teammates = { id: 41, category: 'facts', importance: 0.7, content: 'x', exact: false };
    const { store, writes, audit, probe } = await rowsWith({ near, teamDuplicate: teammates });
    const stored = await store(memory('we deploy with helm'));
    expect(probe.candidatesOfEach).toHaveBeenCalledWith(
      expect.objectContaining({ userId: 'alice' }),
      ['we deploy with helm'],
      { teammates: false },
    );
    expect(writes.teamDuplicate).toHaveBeenCalledWith(
      expect.objectContaining({ userId: 'alice' }),
      tx,
      contentHash('we deploy with helm'),
      [41],
    );
    expect(writes.insertOrGetDuplicate).not.toHaveBeenCalled();
    expect(writes.endorse).toHaveBeenCalledWith(expect.objectContaining({ userId: 'alice' }), tx, 41);
    expect(audit.record).toHaveBeenCalledWith(expect.anything(), tx, {
      action: 'memory.endorse',
      targetType: 'memory',
      targetId: '41',
      details: { match: 'near', similarity: 0.95 },
    });
    expect(stored).toEqual({
      id: 41,
      category: 'facts',
      importance: 0.7,
      duplicate: { match: 'near', similarity: 0.95, teammates: true },
      created: false,
    });
  });

  it('writes an unprobed team memory that carries the commit in one statement guarded by the team check', async () => {
    const alice = specPrincipal('alice');
    const { rows, inserted, writes } = await rowsWith({ insert: async () => null });
    const [item] = await rows.withNear(alice, [await rows.stage(alice, rows.screenNew(memory('helm')))]);
    expect(item.probed).toBe(false);
    // The guard found a teammate's duplicate, or teammates: nothing written, the store runs in steps.
    expect(await rows.store(alice, tx, item, true)).toBeNull();
    expect(inserted()[5]).toEqual({ last: true, team: { alone: true } });
    expect(writes.teamDuplicate).not.toHaveBeenCalled();
    expect(writes.endorse).not.toHaveBeenCalled();
    // In steps (not last) the separate check runs first, as with a probed item that carries the commit.
    // (It finds teammates the item was not probed among: the writer probes and writes again.)
    const again = await rows.store(alice, tx, item).catch((error: unknown) => error);
    expect(again).toBeInstanceOf(TeamProbeNeeded);
    expect(writes.teamDuplicate).toHaveBeenCalledTimes(1);
    expect(writes.insertOrGetDuplicate).toHaveBeenCalledTimes(1);
  });

  it('guards a probed team memory that carries the commit by its candidates in its own statement, and learns from the check in steps', async () => {
    const alice = specPrincipal('alice');
    const near = [{ id: 41, similarity: 0.95 }];
    const { rows, inserted, writes, probe } = await rowsWith({ teammates: true, near });
    const staged = async (content: string) => rows.stage(alice, rows.screenNew(memory(content)));
    // A write in steps finds teammates: the next item is probed.
    await rows.store(alice, tx, (await rows.withNear(alice, [await staged('first')]))[0]).catch(() => null);
    expect(writes.teamDuplicate).toHaveBeenCalledTimes(1);
    const [second] = await rows.withNear(alice, [await staged('second')]);
    expect(second.probed).toBe(true);
    // Carrying the commit, its statement checks the text and the candidates itself: no separate check.
    await rows.store(alice, tx, second, true);
    expect(inserted()[5]).toEqual({ last: true, team: { near: [41] } });
    expect(writes.teamDuplicate).toHaveBeenCalledTimes(1);
    // In steps the check runs on its own, as before.
    await rows.store(alice, tx, second);
    expect(inserted()[5]).toEqual({ last: false });
    expect(writes.teamDuplicate).toHaveBeenCalledTimes(2);
    // An unprobed item written past the guard: no teammates then, so the next one skips the probe.
    await rows.store(alice, tx, { ...second, near: [], probed: false }, true);
    expect(inserted()[5]).toEqual({ last: true, team: { alone: true } });
    const [third] = await rows.withNear(alice, [await staged('third')]);
    expect(third.probed).toBe(false);
    expect(probe.candidatesOfEach).toHaveBeenCalledTimes(1);
  });

  it('skips the meaning probe while the caller’s last write found no teammates, and asks for it when the write finds some', async () => {
    const alice = specPrincipal('alice');
    const { rows, writes, probe } = await rowsWith({ teammates: false });
    const staged = async (content: string) => rows.stage(alice, rows.screenNew(memory(content)));
    // Nothing known yet: the write checks (under its lock) instead of a probe beforehand.
    const [first] = await rows.withNear(alice, [await staged('we deploy with helm')]);
    expect(first.probed).toBe(false);
    expect(probe.candidatesOfEach).not.toHaveBeenCalled();
    await rows.store(alice, tx, first);
    expect(writes.insertOrGetDuplicate).toHaveBeenCalledTimes(1);
    // No teammates then: still no probe.
    const [second] = await rows.withNear(alice, [await staged('we deploy with argo')]);
    expect(second.probed).toBe(false);
    expect(probe.candidatesOfEach).not.toHaveBeenCalled();
    // A teammate shares team memories by now: the write rolls back and asks for the probe.
    writes.teamDuplicate.mockResolvedValueOnce({ duplicate: null, teammates: true });
    await expect(rows.store(alice, tx, second)).rejects.toBeInstanceOf(TeamProbeNeeded);
    expect(writes.insertOrGetDuplicate).toHaveBeenCalledTimes(1);
    // From then on the probe runs first, told that teammates share (no need to ask again).
    const [third] = await rows.withNear(alice, [await staged('we deploy with argo')]);
    expect(third.probed).toBe(true);
    expect(probe.candidatesOfEach).toHaveBeenCalledWith(alice, ['we deploy with argo'], { teammates: true });
    writes.teamDuplicate.mockResolvedValueOnce({ duplicate: null, teammates: true });
    await rows.store(alice, tx, third);
    expect(writes.insertOrGetDuplicate).toHaveBeenCalledTimes(2);
  });

  it('never asks for the probe when none is plugged in (exact duplicates only)', async () => {
    const alice = specPrincipal('alice');
    const { rows, writes, probe } = await rowsWith();
    (rows as unknown as { teamDuplicates: { probe: unknown } }).teamDuplicates.probe = undefined;
    const [item] = await rows.withNear(alice, [await rows.stage(alice, rows.screenNew(memory('x')))]);
    expect(item.probed).toBe(true);
    await rows.store(alice, tx, item);
    expect(probe.candidatesOfEach).not.toHaveBeenCalled();
    expect(writes.insertOrGetDuplicate).toHaveBeenCalledTimes(1);
  });

  it('never looks for a teammate’s memory for a private memory, a secret or a correction', async () => {
    const { store, writes, probe } = await rowsWith();
    await store(memory('mine alone', { visibility: 'private' }));
    await store(memory('password hunter2'));
    await store(memory('we deploy on Fridays', { supersedes: 4 }));
    expect(probe.candidatesOfEach).not.toHaveBeenCalled();
    expect(writes.teamDuplicate).not.toHaveBeenCalled();
    expect(writes.insertOrGetDuplicate).toHaveBeenCalledTimes(3);
  });

  it('stores a correction of a teammate’s team memory as a team proposal, linked for reading, audited', async () => {
    const { store, inserted, links, audit } = await rowsWith({ targetWritable: false });
    await store(memory('we deploy on Fridays now', { supersedes: 4, visibility: 'private' }), true);
    const [, , row] = inserted();
    expect(row).toMatchObject({ proposed: true, visibility: 'team' });
    expect(links.link).toHaveBeenCalledWith(
      expect.objectContaining({ userId: 'alice' }),
      tx,
      { srcId: 10, dstId: 4, linkType: 'supersedes' },
      { ifExists: 'keep', target: 'read' },
    );
    expect(audit.record).toHaveBeenCalledWith(expect.anything(), tx, {
      action: 'memory.propose',
      targetType: 'memory',
      targetId: '10',
      details: { supersedes: 4 },
    });
  });

  it('writes a new memory’s anchors after its row (so the row statement cannot carry the commit), in the memory’s project', async () => {
    const { store, inserted, anchors } = await rowsWith();
    await store(
      memory('the retry in src/pay.ts is idempotent', {
        project: 'github.com/a/pay',
        anchors: [{ path: 'src/pay.ts' }],
      }),
      true,
    );
    expect(inserted()[5]).toEqual({ last: false });
    expect(anchors.replace).toHaveBeenCalledWith(expect.anything(), tx, 10, [
      { path: 'src/pay.ts', repo: 'github.com/a/pay' },
    ]);
  });

  it('leaves anchors alone when the store answers an existing memory, and refuses repo-less anchors without a project first', async () => {
    const { store, anchors, writes } = await rowsWith({
      insert: async () => ({ id: 3, category: 'fact', importance: 0.5, created: false }),
    });
    await store(memory('already known', { project: 'github.com/a/pay', anchors: [{ path: 'a.ts' }] }));
    expect(anchors.replace).not.toHaveBeenCalled();
    await expect(store(memory('no project', { anchors: [{ path: 'a.ts' }] }))).rejects.toMatchObject({
      code: 'validation_failed',
    });
    expect(writes.insertOrGetDuplicate).toHaveBeenCalledTimes(1);
  });
});
