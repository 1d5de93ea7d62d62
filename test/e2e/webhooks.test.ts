import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@app/config';
import { FakeVault } from '@app/testing';
import { runCli } from '../../apps/cli/src/cli';
import { teamFixture } from '../support/e2e-env';
import { client } from '../support/http-client';
import { adminKeyInOtherTenant } from '../support/other-tenant';
import {
  startApiProcess,
  startWorkerProcess,
  type ApiProcess,
  type WorkerProcess,
} from '../support/processes';
import { wholeDatabaseText } from '../support/secret-scan';
import { withDb } from '../support/superuser-db';
import { waitFor } from '../support/wait-for';

interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly at: number;
}

interface EventBody {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

interface WebhookBody {
  id: string;
  url: string;
  events: string[];
  enabled: boolean;
  secret?: string;
  secret_version: number;
  failure_streak: number;
  disabled_reason: string | null;
}

interface DeliveryBody {
  id: string;
  event_id: string;
  event_type: string;
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  payload: EventBody;
  attempt_log?: {
    attempt: number;
    status_code: number | null;
    error: string | null;
    manual: boolean;
    attempted_at: string;
  }[];
}

/** The Standard Webhooks check written out with node:crypto: HMAC-SHA256 of `id.timestamp.body`, base64. */
function verifiesWith(secret: string, headers: IncomingHttpHeaders, body: string): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key)
    .update(`${String(headers['webhook-id'])}.${String(headers['webhook-timestamp'])}.${body}`)
    .digest();
  return String(headers['webhook-signature'])
    .split(' ')
    .some((signature) => {
      const [version, value] = signature.split(',');
      const given = Buffer.from(value ?? '', 'base64');
      return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
    });
}

/** A receiver on 127.0.0.1 that records every request; each path answers the status set for it (204 by default). */
class Receiver {
  readonly received: Received[] = [];
  readonly status = new Map<string, number>();
  private server: Server | undefined;
  port = 0;

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '/';
        this.received.push({
          path,
          headers: req.headers,
          body: Buffer.concat(chunks).toString(),
          at: Date.now(),
        });
        res.writeHead(this.status.get(path) ?? 204).end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server!.address() as AddressInfo).port;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  on(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

const parse = (r: Received) => JSON.parse(r.body) as EventBody;

describe('signed webhooks (fake Vault API, built API and worker, BullMQ on Redis)', () => {
  const vault = new FakeVault();
  const receiver = new Receiver();
  let team: ReturnType<typeof teamFixture>;
  let api: ApiProcess;
  let worker: WorkerProcess;
  let admin: ReturnType<typeof client>;
  let alice: ReturnType<typeof client>;
  const RETRY_BASE_MS = 400;

  beforeAll(async () => {
    const [address] = await Promise.all([vault.start(), receiver.start()]);
    team = teamFixture({
      VAULT_ADDR: address,
      VAULT_TOKEN: vault.rootToken,
      DEFAULT_VISIBILITY: 'team',
      WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32',
      WEBHOOK_MAX_ATTEMPTS: '3',
      WEBHOOK_RETRY_BASE_MS: String(RETRY_BASE_MS),
      WEBHOOK_DISABLE_AFTER_FAILURES: '2',
      WEBHOOK_TIMEOUT_MS: '2000',
      OUTBOX_POLL_INTERVAL_MS: '100',
    });
    [api, worker] = await Promise.all([startApiProcess(team.env), startWorkerProcess(team.env)]);
    admin = client(api.url, team.keys.admin);
    alice = client(api.url, team.keys.alice);
  });
  afterAll(async () => {
    await Promise.all([api?.stop(), worker?.stop()]);
    await Promise.all([vault.stop(), receiver.stop()]);
  });

  const deliveries = async (endpoint: string, query = '') =>
    (await admin.get<{ deliveries: DeliveryBody[] }>(`/api/admin/webhooks/${endpoint}/deliveries${query}`))
      .body.deliveries;

  it('signs store, update, share and delete events for a local receiver within seconds; content and secrets stay out', async () => {
    const created = await admin.post<WebhookBody>('/api/admin/webhooks', {
      url: receiver.url('/team'),
      events: ['memory.*'],
      description: 'team feed',
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const { id, secret } = created.body;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);
    expect(created.body.events).toEqual(
      expect.arrayContaining(['memory.created', 'memory.proposal.accepted']),
    );
    expect(created.body.events).not.toContain('session.ended');

    // The secret is in Vault, never in the database, and never shown again.
    const [{ tenant_id: tenantId }] = await withDb(
      async (db) =>
        (await db.query<{ tenant_id: string }>(`SELECT tenant_id FROM webhook_endpoints WHERE id = $1`, [id]))
          .rows,
    );
    expect(vault.kv.read(`memory-service/${tenantId}/webhooks/${id}/v1`, 1).body).toMatchObject({
      data: { data: { content: secret } },
    });
    const listed = await admin.get<{ webhooks: WebhookBody[] }>('/api/admin/webhooks');
    expect(listed.body.webhooks.map((w) => w.id)).toContain(id);
    expect(JSON.stringify(listed.body)).not.toContain(secret!);

    const content = 'Deploys go through the release train on Thursdays';
    const stored = await alice.post<{ id: number }>('/api/memories', { content, tags: 'ops' });
    expect(stored.status).toBe(200);
    const memoryId = stored.body.id;
    const started = Date.now();
    const createdEvent = await waitFor(
      'memory.created at the receiver',
      () =>
        receiver
          .on('/team')
          .find((r) => parse(r).type === 'memory.created' && parse(r).data.memory_id === memoryId),
      10_000,
    );
    expect(createdEvent.at - started).toBeLessThan(5_000);

    // The published algorithm, by hand and with the Standard Webhooks library.
    expect(verifiesWith(secret!, createdEvent.headers, createdEvent.body)).toBe(true);
    expect(
      verifiesWith(secret!, { ...createdEvent.headers, 'webhook-id': 'msg_other' }, createdEvent.body),
    ).toBe(false);
    expect(() =>
      new Webhook(secret!).verify(createdEvent.body, createdEvent.headers as Record<string, string>),
    ).not.toThrow();
    expect(createdEvent.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(Math.abs(Number(createdEvent.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
    const body = parse(createdEvent);
    expect(body.data).toMatchObject({ memory_id: memoryId, actor: { user_id: expect.any(String) } });
    expect(createdEvent.body).not.toContain('release train');

    expect(
      (await alice.put(`/api/memories/${memoryId}`, { content: `${content}, after the freeze` })).status,
    ).toBe(200);
    expect(
      (await alice.post(`/api/memories/${memoryId}/share`, { shared_with: 'bob', permission: 'read' }))
        .status,
    ).toBeLessThan(300);
    expect((await alice.delete(`/api/memories/${memoryId}`)).status).toBe(200);
    const types = await waitFor(
      'updated, shared and deleted events',
      () => {
        const seen = receiver
          .on('/team')
          .map(parse)
          .filter((e) => e.data.memory_id === memoryId)
          .map((e) => e.type);
        return ['memory.updated', 'memory.shared', 'memory.deleted'].every((t) => seen.includes(t))
          ? seen
          : undefined;
      },
      10_000,
    );
    expect(types).toEqual(
      expect.arrayContaining(['memory.created', 'memory.updated', 'memory.shared', 'memory.deleted']),
    );
    const events = receiver.on('/team').map(parse);
    expect(events.find((e) => e.type === 'memory.updated')?.data).toMatchObject({
      fields: ['content'],
      change: 'update',
    });
    expect(events.find((e) => e.type === 'memory.shared')?.data).toMatchObject({
      shared_with: 'bob',
      permission: 'read',
    });
    for (const r of receiver.on('/team')) expect(verifiesWith(secret!, r.headers, r.body)).toBe(true);

    // The delivery log: each delivery with its status code; neither the secret nor content in it.
    const log = await deliveries(id);
    expect(log.length).toBeGreaterThanOrEqual(4);
    expect(log.every((d) => d.status === 'delivered' && d.last_status_code === 204 && d.attempts === 1)).toBe(
      true,
    );
    const detail = await admin.get<DeliveryBody>(`/api/admin/webhooks/${id}/deliveries/${log[0].id}`);
    expect(detail.body.attempt_log).toEqual([
      expect.objectContaining({ attempt: 1, status_code: 204, error: null }),
    ]);
    expect(detail.body.event_id).toBe(
      receiver
        .on('/team')
        .find((r) => JSON.parse(r.body).type === log[0].event_type && parse(r).data.memory_id === memoryId)
        ?.headers['webhook-id'],
    );
    const dump = await wholeDatabaseText();
    expect(dump).not.toContain(secret!.slice('whsec_'.length));
    const logText = JSON.stringify(log) + JSON.stringify(detail.body);
    expect(logText).not.toContain(secret!.slice('whsec_'.length));
    expect(logText).not.toContain('release train');
  });

  it('retries a receiver answering 500 with backoff, fails the delivery, disables the endpoint; redeliver sends it again', async () => {
    receiver.status.set('/flaky', 500);
    const created = await admin.post<WebhookBody>('/api/admin/webhooks', {
      url: receiver.url('/flaky'),
      events: ['memory.created'],
    });
    expect(created.status).toBe(201);
    const id = created.body.id;

    const first = await alice.post<{ id: number }>('/api/memories', {
      content: 'The staging database is reset nightly',
    });
    const second = await alice.post<{ id: number }>('/api/memories', {
      content: 'Feature flags live in the flags service',
    });
    expect([first.status, second.status]).toEqual([200, 200]);

    const failed = await waitFor(
      'both deliveries to fail every attempt',
      async () => {
        const page = await deliveries(id);
        return page.length === 2 && page.every((d) => d.status === 'failed') ? page : undefined;
      },
      30_000,
    );
    expect(failed.every((d) => d.attempts === 3 && d.last_status_code === 500)).toBe(true);
    expect(failed[0].last_error).toBe('the receiver answered 500');

    // Three attempts each, the same event id on every one, the gaps growing (base, then twice the base).
    for (const delivery of failed) {
      const attempts = receiver.on('/flaky').filter((r) => r.headers['webhook-id'] === delivery.event_id);
      expect(attempts).toHaveLength(3);
      const gaps = [attempts[1].at - attempts[0].at, attempts[2].at - attempts[1].at];
      expect(gaps[0]).toBeGreaterThanOrEqual(RETRY_BASE_MS * 0.9);
      expect(gaps[1]).toBeGreaterThanOrEqual(RETRY_BASE_MS * 2 * 0.9);
      expect(new Set(attempts.map((a) => a.headers['webhook-timestamp'])).size).toBeGreaterThanOrEqual(1);
    }

    // Two failed deliveries in a row disable the endpoint; nothing more is sent to it.
    const endpoint = await admin.get<WebhookBody>(`/api/admin/webhooks/${id}`);
    expect(endpoint.body).toMatchObject({ enabled: false, failure_streak: 2 });
    expect(endpoint.body.disabled_reason).toMatch(/2 deliveries in a row failed/);
    const before = receiver.on('/flaky').length;
    await alice.post('/api/memories', { content: 'The on-call rota is in the wiki' });
    await new Promise((r) => setTimeout(r, 1_500));
    expect(receiver.on('/flaky').length).toBe(before);

    // Redeliver is refused while disabled; once the receiver is fixed and the endpoint enabled, it sends.
    const refused = await admin.post(`/api/admin/webhooks/${id}/deliveries/${failed[0].id}/redeliver`);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'webhook_disabled' });
    receiver.status.set('/flaky', 200);
    const enabled = await admin.request<WebhookBody>('PATCH', `/api/admin/webhooks/${id}`, { enabled: true });
    expect(enabled.body).toMatchObject({ enabled: true, failure_streak: 0, disabled_reason: null });
    const queued = await admin.post<DeliveryBody>(
      `/api/admin/webhooks/${id}/deliveries/${failed[0].id}/redeliver`,
    );
    expect(queued.status).toBe(202);
    const redelivered = await waitFor(
      'the redelivery',
      async () => {
        const d = (await admin.get<DeliveryBody>(`/api/admin/webhooks/${id}/deliveries/${failed[0].id}`))
          .body;
        return d.status === 'delivered' ? d : undefined;
      },
      10_000,
    );
    expect(redelivered.attempts).toBe(4);
    expect(redelivered.attempt_log?.at(-1)).toMatchObject({ attempt: 4, status_code: 200, manual: true });
    const last = receiver.on('/flaky').at(-1)!;
    expect(last.headers['webhook-id']).toBe(failed[0].event_id);
    expect(verifiesWith(created.body.secret!, last.headers, last.body)).toBe(true);
    // The delivery skipped while disabled stays in the log as skipped or absent, never sent.
    expect(receiver.on('/flaky').filter((r) => parse(r).data.memory_id === undefined)).toEqual([]);
  });

  it('refuses URLs reaching private, loopback or link-local addresses unless allowed, and other schemes or credentials', async () => {
    const cases: [string, RegExp][] = [
      ['http://10.1.2.3/hook', /10\.1\.2\.3 \(private\)/],
      ['http://169.254.169.254/latest/meta-data', /linkLocal/],
      [`http://127.0.0.2:${receiver.port}/team`, /loopback/],
      [`http://[::1]:${receiver.port}/team`, /loopback/],
      ['http://[::ffff:192.168.1.10]/hook', /private/],
      ['http://0.0.0.0/hook', /unspecified/],
      ['ftp://files.example.com/hook', /http or https/],
      [`http://user:pw@127.0.0.1:${receiver.port}/team`, /user name or password/],
      ['not a url', /absolute URL/],
    ];
    for (const [url, message] of cases) {
      const res = await admin.post<{ detail: string; code: string }>('/api/admin/webhooks', {
        url,
        events: ['*'],
      });
      expect(res.status, url).toBe(400);
      expect(res.body.code).toBe('webhook_url_refused');
      expect(res.body.detail).toMatch(message);
    }
    const unknownEvent = await admin.post<{ detail: string }>('/api/admin/webhooks', {
      url: receiver.url('/x'),
      events: ['memory.exploded'],
    });
    expect(unknownEvent.status).toBe(422);
    expect(unknownEvent.body.detail).toMatch(/memory\.exploded/);
    // A member is not an admin.
    expect((await alice.get('/api/admin/webhooks')).status).toBe(403);
    expect((await alice.get('/api/admin/webhooks/events')).status).toBe(403);
    // The catalogue an admin (and the console's form) subscribes from: every type registration accepts.
    const catalogue = await admin.get<{ events: string[] }>('/api/admin/webhooks/events');
    expect(catalogue.status).toBe(200);
    expect(catalogue.body.events).toEqual(
      expect.arrayContaining(['memory.created', 'memory.stale', 'session.ended']),
    );
    const all = await admin.post<{ id: string; events: string[] }>('/api/admin/webhooks', {
      url: receiver.url('/catalogue'),
      events: catalogue.body.events,
    });
    expect(all.status).toBe(201);
    expect(all.body.events).toEqual(catalogue.body.events);
    expect((await admin.delete(`/api/admin/webhooks/${all.body.id}`)).status).toBe(200);
  });

  it('rotates the secret with an overlap: both sign until it ends', async () => {
    const created = await admin.post<WebhookBody>('/api/admin/webhooks', {
      url: receiver.url('/rotated'),
      events: ['session.ended', 'memory.restored'],
    });
    const rotated = await admin.post<WebhookBody>(`/api/admin/webhooks/${created.body.id}/rotate-secret`, {
      overlap_seconds: 3600,
    });
    expect(rotated.status).toBe(201);
    expect(rotated.body.secret_version).toBe(2);
    expect(rotated.body.secret).not.toBe(created.body.secret);

    const session = await alice.post<{ id: string }>('/api/sessions', {
      agent: 'claude-code',
      project: 'svc',
    });
    expect(session.status).toBeLessThan(300);
    expect(
      (await alice.request('PATCH', `/api/sessions/${session.body.id}`, { status: 'ended' })).status,
    ).toBe(200);
    const ended = await waitFor(
      'session.ended',
      () => receiver.on('/rotated').find((r) => parse(r).type === 'session.ended'),
      10_000,
    );
    expect(parse(ended).data).toMatchObject({ session_id: session.body.id, status: 'ended' });
    expect(String(ended.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifiesWith(rotated.body.secret!, ended.headers, ended.body)).toBe(true);
    expect(verifiesWith(created.body.secret!, ended.headers, ended.body)).toBe(true);

    // Without overlap the old secret stops signing at once.
    const again = await admin.post<WebhookBody>(`/api/admin/webhooks/${created.body.id}/rotate-secret`, {
      overlap_seconds: 0,
    });
    const memory = await alice.post<{ id: number }>('/api/memories', {
      content: 'Restorable note about caches',
    });
    await alice.delete(`/api/memories/${memory.body.id}`);
    expect((await alice.post(`/api/memories/${memory.body.id}/restore`)).status).toBe(200);
    const restored = await waitFor(
      'memory.restored',
      () => receiver.on('/rotated').find((r) => parse(r).type === 'memory.restored'),
      10_000,
    );
    expect(String(restored.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifiesWith(again.body.secret!, restored.headers, restored.body)).toBe(true);
    expect(verifiesWith(rotated.body.secret!, restored.headers, restored.body)).toBe(false);
  });

  it('is managed from the CLI with the same rules: create prints the secret once, deliveries and redeliver work', async () => {
    const cli = async (...args: string[]) => {
      let out = '';
      let err = '';
      const code = await runCli(['--json', ...args, '--tenant', team.tenant], {
        io: { out: (t) => void (out += t), err: (t) => void (err += t) },
        loadConfig: () => loadConfig(team.env),
      });
      return { code, out, err };
    };
    const created = await cli(
      'webhooks',
      'create',
      '--url',
      receiver.url('/cli'),
      '--events',
      'memory.created',
    );
    expect(created.err).toBe('');
    expect(created.code).toBe(0);
    const endpoint = JSON.parse(created.out) as WebhookBody;
    expect(endpoint.secret).toMatch(/^whsec_/);
    const refused = await cli('webhooks', 'create', '--url', 'http://10.9.8.7/x', '--events', '*');
    expect(refused.code).not.toBe(0);
    expect(refused.err).toMatch(/10\.9\.8\.7 \(private\)/);

    const stored = await alice.post<{ id: number }>('/api/memories', {
      content: 'CLI-registered receivers get events too',
    });
    const event = await waitFor(
      'the event at the CLI-registered endpoint',
      () => receiver.on('/cli').find((r) => parse(r).data.memory_id === stored.body.id),
      10_000,
    );
    expect(verifiesWith(endpoint.secret!, event.headers, event.body)).toBe(true);

    const listed = JSON.parse((await cli('webhooks', 'list')).out) as { webhooks: WebhookBody[] };
    expect(listed.webhooks.find((w) => w.id === endpoint.id)).toMatchObject({ url: receiver.url('/cli') });
    expect(JSON.stringify(listed)).not.toContain(endpoint.secret!);
    const log = await waitFor('a delivered delivery', async () => {
      const page = JSON.parse((await cli('webhooks', 'deliveries', endpoint.id)).out) as {
        deliveries: DeliveryBody[];
      };
      return page.deliveries[0]?.status === 'delivered' ? page.deliveries : undefined;
    });
    const again = await cli('webhooks', 'redeliver', endpoint.id, log[0].id);
    expect(again.code).toBe(0);
    await waitFor(
      'the redelivery',
      () =>
        receiver.on('/cli').filter((r) => r.headers['webhook-id'] === log[0].event_id).length === 2
          ? true
          : undefined,
      10_000,
    );
    const disabled = await cli('webhooks', 'update', endpoint.id, '--disable');
    expect(JSON.parse(disabled.out)).toMatchObject({
      enabled: false,
      disabled_reason: 'disabled by an admin',
    });
    expect((await cli('webhooks', 'delete', endpoint.id)).code).toBe(0);
    expect((await admin.get(`/api/admin/webhooks/${endpoint.id}`)).status).toBe(404);
  });

  it('counts an attempt whose secret Vault cannot give as failed, sends nothing unsigned, and delivers on a later retry', async () => {
    const created = await admin.post<WebhookBody>('/api/admin/webhooks', {
      url: receiver.url('/sealed'),
      events: ['memory.created'],
    });
    vault.faults.sealed = true;
    let memoryId = 0;
    try {
      memoryId = (await alice.post<{ id: number }>('/api/memories', { content: 'Vault seals on restart' }))
        .body.id;
      await waitFor(
        'an attempt without the secret',
        async () => {
          const [d] = await deliveries(created.body.id);
          return d?.attempts >= 1 ? d : undefined;
        },
        10_000,
      );
      expect(receiver.on('/sealed')).toEqual([]);
    } finally {
      vault.faults.sealed = false;
    }
    const [pending] = await deliveries(created.body.id);
    expect(pending.last_error).toMatch(/signing secret could not be read/);
    const delivered = await waitFor(
      'the retry after Vault is back',
      async () => {
        const [d] = await deliveries(created.body.id);
        return d?.status === 'delivered' ? d : undefined;
      },
      10_000,
    );
    expect(delivered.attempts).toBeGreaterThanOrEqual(2);
    const sent = receiver.on('/sealed');
    expect(sent).toHaveLength(1);
    expect(parse(sent[0]).data.memory_id).toBe(memoryId);
    expect(verifiesWith(created.body.secret!, sent[0].headers, sent[0].body)).toBe(true);
    await admin.delete(`/api/admin/webhooks/${created.body.id}`);
  });

  it('sends memory.stale when a reported code change makes an anchored memory stale', async () => {
    const created = await admin.post<WebhookBody>('/api/admin/webhooks', {
      url: receiver.url('/stale'),
      events: ['memory.stale'],
    });
    const repo = `github.com/acme/wh-${randomUUID().slice(0, 8)}`;
    const memory = await alice.post<{ id: number }>('/api/memories', {
      content: 'Migrations in db/migrate.ts run in one transaction.',
      project: repo,
      anchors: [{ path: 'db/migrate.ts', hash: 'a'.repeat(40) }],
    });
    expect(memory.status).toBe(200);
    const pushed = await alice.post('/api/code-events', {
      repo,
      branch: 'main',
      after: 'd'.repeat(40),
      changes: [{ path: 'db/migrate.ts', status: 'modified', hash: 'b'.repeat(40) }],
    });
    expect(pushed.status).toBe(202);
    const stale = await waitFor(
      'memory.stale',
      () => receiver.on('/stale').find((r) => parse(r).data.memory_id === memory.body.id),
      10_000,
    );
    expect(parse(stale)).toMatchObject({
      type: 'memory.stale',
      data: { memory_id: memory.body.id, repo, path: 'db/migrate.ts', commit: 'd'.repeat(40) },
    });
    expect(verifiesWith(created.body.secret!, stale.headers, stale.body)).toBe(true);
    await admin.delete(`/api/admin/webhooks/${created.body.id}`);
  });

  it('keeps tenants apart: another tenant’s admin sees none of these endpoints and its writes send nothing here', async () => {
    const mine = await admin.get<{ webhooks: WebhookBody[] }>('/api/admin/webhooks');
    const otherAdmin = client(
      api.url,
      await adminKeyInOtherTenant(`wh-${team.tenant}`, 'admin,memories:write,memories:read'),
    );
    const theirs = await otherAdmin.get<{ webhooks: WebhookBody[] }>('/api/admin/webhooks');
    expect(theirs.status).toBe(200);
    expect(theirs.body.webhooks).toEqual([]);
    const id = mine.body.webhooks[0].id;
    expect((await otherAdmin.get(`/api/admin/webhooks/${id}`)).status).toBe(404);
    expect((await otherAdmin.get(`/api/admin/webhooks/${id}/deliveries`)).status).toBe(404);
    expect((await otherAdmin.request('PATCH', `/api/admin/webhooks/${id}`, { enabled: false })).status).toBe(
      404,
    );
    expect((await otherAdmin.delete(`/api/admin/webhooks/${id}`)).status).toBe(404);

    const before = receiver.received.length;
    const stored = await otherAdmin.post<{ id: number }>('/api/memories', {
      content: 'Another team keeps its own notes',
    });
    expect(stored.status).toBe(200);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(receiver.received.slice(before).filter((r) => parse(r).data.memory_id === stored.body.id)).toEqual(
      [],
    );

    // Deleting an endpoint removes its secrets from Vault.
    const deleted = await admin.delete(`/api/admin/webhooks/${id}`);
    expect(deleted.status).toBe(200);
    expect((await admin.get(`/api/admin/webhooks/${id}`)).status).toBe(404);
  });
});
