import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  AGENT_CONTEXT_FILES,
  AGENT_CONTEXT_FORMATS,
  CreateMemoryUseCase,
  DeleteMemoryUseCase,
  PinMemoryUseCase,
  RenderAgentContextUseCase,
  type AgentContextFormat,
  type NewMemory,
} from '@app/memories';
import { AgentContextRepository, MemoryReadRepository, PinRepository } from '@app/memories/testing';
import { deriveKeyEncryptionKey, LocalSecretStore } from '@app/secrets/testing';
import { ALL_SCOPES, AuditWriter, type Principal } from '@app/tenancy';
import {
  createTestTenant,
  memberPrincipal,
  newMemory,
  openTestDatabase,
  type TestDatabase,
} from '@app/testing';
import { memoryWritePartsFor } from '../../../test/support/memory-writes';

const limits = { maxContentBytes: 4096, maxImportBatch: 100, maxListLimit: 100 };
const PROJECT = 'github.com/acme/pay';
const GOLDEN = join(__dirname, 'fixtures', 'agent-context');
/** `UPDATE_GOLDEN=1 npx vitest run libs/memories/test/agent-context.test.ts` rewrites the golden files. */
const UPDATE = process.env.UPDATE_GOLDEN === '1';

/**
 * A project's agent rule files against real Postgres: exactly the team's current knowledge of the
 * project, in a stable order (golden files, ids replaced by names), the same for every teammate;
 * never private, sensitive, stale, superseded, deleted or another tenant's memories.
 */
describe('agent context projection against real Postgres', () => {
  let db: TestDatabase;
  let alice: Principal;
  let bob: Principal;
  let admin: Principal;
  let dave: Principal;
  let create: CreateMemoryUseCase;
  let remove: DeleteMemoryUseCase;
  let pin: PinMemoryUseCase;
  let render: RenderAgentContextUseCase;
  /** Name of each stored memory, by id: golden files name memories instead of numbering them. */
  const names = new Map<number, string>();
  const ids: Record<string, number> = {};

  const store = async (name: string, who: Principal, content: string, overrides: Partial<NewMemory> = {}) => {
    const stored = await create.execute(
      who,
      newMemory(content, { visibility: 'team', project: PROJECT, category: 'decisions', ...overrides }),
    );
    names.set(stored.id, name);
    ids[name] = stored.id;
    return stored.id;
  };
  const anchor = (memoryId: number, state: 'current' | 'stale' | 'orphaned', tenantId: string) =>
    db.tx.asSystem((tx) =>
      tx.query(
        `INSERT INTO memory_anchors (tenant_id, memory_id, ordinal, repo, path, state)
         VALUES ($1, $2, 0, $3, 'src/ledger.ts', $4)`,
        [tenantId, memoryId, PROJECT, state],
      ),
    );
  const named = (list: readonly number[]) => list.map((id) => names.get(id) ?? `unknown:${id}`);
  const withNames = (content: string) =>
    content.replace(/#(\d+) ·/g, (m, id) => `#${names.get(Number(id)) ?? id} ·`);
  const renderAs = (who: Principal, format: AgentContextFormat = 'agents-md', project = PROJECT) =>
    render.execute(who, { project, format });

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 4);
    const tenant = await createTestTenant(db, 'projection');
    alice = await memberPrincipal(tenant, 'alice');
    bob = await memberPrincipal(tenant, 'bob');
    admin = { ...(await memberPrincipal(tenant, 'root')), scopes: ALL_SCOPES };
    await tenant.allowAdminPrivateAccess();
    dave = await memberPrincipal(await createTestTenant(db, 'projection-other'), 'dave');
    const secrets = new LocalSecretStore(deriveKeyEncryptionKey(randomBytes(32).toString('hex')));
    const parts = await memoryWritePartsFor(db.tx, limits, secrets, { defaultVisibility: 'team' });
    create = new CreateMemoryUseCase(parts.writer);
    remove = new DeleteMemoryUseCase(parts.writer);
    pin = new PinMemoryUseCase(db.tx, new MemoryReadRepository(), new PinRepository(), new AuditWriter());
    render = new RenderAgentContextUseCase(db.tx, new AgentContextRepository());

    // Rendered (in the file's order: pinned, decisions, corrections, conventions, gotchas).
    await store('rollback', bob, 'Rollback: helm rollback pay <revision>, then post in #pay-ops', {
      category: 'runbooks',
      importance: 0.3,
    });
    await pin.execute(admin, ids.rollback, 'team');
    await store('deploy', alice, 'We deploy with Helm 3 from the release branch', { importance: 0.9 });
    await store('queue', alice, 'The billing queue runs on RabbitMQ 3.12', { importance: 0.6 });
    await store('oncall', alice, 'The on-call rotation is weekly, not daily', { category: 'corrections' });
    await store('reviews', bob, 'Prefer small pull requests, one concern each', { category: 'preferences' });
    await store('lint', bob, 'Lint runs with eslint --max-warnings 0', {
      category: 'facts',
      tags: ['Convention', 'lint'],
      importance: 0.7,
    });
    await store('ledger', alice, 'Ledger timestamps are UTC; the UI shows local time', {
      category: 'gotchas',
      importance: 0.8,
    });
    await anchor(ids.ledger, 'current', tenant.tenantId);
    await store('temp', alice, 'Freeze merges to main during the audit week', { importance: 0.4 });
    // Left out.
    await store('fact', alice, 'The pay service is written in TypeScript', { category: 'facts' });
    await store('own-private', alice, 'I alone decided to try Bun locally', { visibility: 'private' });
    await store('bob-private', bob, 'Bob keeps his scratch notes in notes.md', { visibility: 'private' });
    await store('sensitive', alice, 'The staging database password is hunter2-staging', {
      forceSensitive: true,
    });
    await store('stale', alice, 'Ledger rows are rounded in ledger.ts line 40', { importance: 1 });
    await anchor(ids.stale, 'stale', tenant.tenantId);
    await store('orphaned', alice, 'Fees are computed in fees.ts', { importance: 1 });
    await anchor(ids.orphaned, 'orphaned', tenant.tenantId);
    await store('web', alice, 'The web app uses Next.js', { project: 'github.com/acme/web' });
    await store('no-project', alice, 'All services log JSON', { project: null });
    // A teammate's correction of alice's decision is a proposal: not in force, the original stays.
    await store('proposal', bob, 'We deploy with Argo CD', { supersedes: ids.deploy });
    await store('dave', dave, 'Another tenant deploys pay with Nomad', { importance: 1 });
  });
  afterAll(async () => db?.close());

  it('renders the project’s pinned memories, decisions, corrections and conventions in order', async () => {
    const first = await renderAs(alice);
    expect(named(first.memoryIds)).toEqual([
      'rollback',
      'deploy',
      'queue',
      'temp',
      'oncall',
      'lint',
      'reviews',
      'ledger',
    ]);
    expect(first.omitted).toBe(0);
  });

  it('replaces a corrected memory by its head and drops a deleted one on the next render', async () => {
    await store('queue-now', alice, 'The billing queue runs on Redis streams since June', {
      importance: 0.6,
      supersedes: ids.queue,
    });
    await remove.execute(alice, ids.temp);
    const next = await renderAs(alice);
    expect(named(next.memoryIds)).toEqual([
      'rollback',
      'deploy',
      'queue-now',
      'oncall',
      'lint',
      'reviews',
      'ledger',
    ]);
  });

  it('matches the golden file of each format, and every teammate renders the same bytes', async () => {
    for (const format of AGENT_CONTEXT_FORMATS) {
      const rendered = await renderAs(alice, format);
      expect(rendered.file).toBe(AGENT_CONTEXT_FILES[format]);
      const golden = join(GOLDEN, `${format}.golden`);
      if (UPDATE) await writeFile(golden, withNames(rendered.content));
      expect(withNames(rendered.content), format).toBe(await readFile(golden, 'utf8'));
      for (const who of [bob, admin]) expect((await renderAs(who, format)).content).toBe(rendered.content);
      // The same data renders the same bytes.
      expect((await renderAs(alice, format)).content).toBe(rendered.content);
    }
  });

  it('never shows private, sensitive, stale or other projects’ memories', async () => {
    const { content, memoryIds } = await renderAs(alice);
    for (const name of [
      'fact',
      'own-private',
      'bob-private',
      'sensitive',
      'stale',
      'orphaned',
      'web',
      'no-project',
      'proposal',
      'queue',
      'temp',
    ])
      expect(memoryIds, name).not.toContain(ids[name]);
    for (const text of [
      'Bun',
      'scratch',
      'hunter2',
      'REDACTED',
      'rounded',
      'fees.ts',
      'Next.js',
      'Argo',
      'RabbitMQ',
      'Freeze',
    ])
      expect(content, text).not.toContain(text);
  });

  it('keeps one tenant’s project out of another tenant’s render', async () => {
    expect(named((await renderAs(dave)).memoryIds)).toEqual(['dave']);
    expect((await renderAs(alice)).memoryIds).not.toContain(ids.dave);
    const unknown = await renderAs(alice, 'agents-md', 'github.com/acme/unknown');
    expect(unknown.memoryIds).toEqual([]);
    expect(unknown.content).toContain('No team memories to show for this project yet.');
  });
});
