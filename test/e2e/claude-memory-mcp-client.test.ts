import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeMemoryMcpClient, ClientApiError } from '../support/claude-memory-mcp-client';
import { clientTeam } from '../support/claude-memory-mcp-team';

/**
 * claude-memory-mcp's client in HTTP mode against the built API: every tool sends exactly the
 * request that client sends (see test/support/claude-memory-mcp-client.ts and docs/compatibility.md)
 * and must get back every field the client reads. Sharing cases are in
 * claude-memory-mcp-client-sharing.test.ts, the background sync engine in
 * claude-memory-mcp-client-sync.test.ts.
 */

type Row = Record<string, unknown>;

describe('claude-memory-mcp client (HTTP mode): store, recall, list, update, delete, secret_get', () => {
  const env = clientTeam({ MEMORY_ENCRYPTION_KEY: 'compat suite passphrase 0123456789' });
  const { alice, bob, dave } = env;
  const marker = `m${randomUUID().slice(0, 8)}`;

  beforeAll(() => env.start());
  afterAll(() => env.stop());

  const storedId = (text: string) => Number(/#(\d+)/.exec(text)?.[1]);

  it('memory_store: the default body answers {id, category, importance}; a teammate sees it, another tenant does not', async () => {
    const res = await alice().raw('POST', '/api/memories', {
      content: `The ${marker} billing service retries webhooks three times`,
      category: 'facts',
      tags: '',
      expanded_keywords: 'billing webhook retry policy delivery',
      importance: 0.5,
      force_sensitive: false,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ id: expect.any(Number), category: 'facts', importance: 0.5 });

    const text = await alice().tools.memory_store({
      content: `Deploys of ${marker} go out through the release train on Tuesdays`,
      category: 'decisions',
      tags: 'release,ci',
      importance: 0.9,
      expanded_keywords: 'deploy release train schedule tuesday',
    });
    expect(text).toMatch(/^Stored memory #\d+ in category 'decisions' with importance 0\.9$/);
    const id = storedId(text);

    const bobs = await bob().raw<{ memories: Row[] }>('GET', '/api/memories?limit=500');
    expect(bobs.body.memories.map((m) => m.id)).toContain(id);
    const daves = await dave().raw<{ memories: Row[] }>('GET', '/api/memories?limit=500');
    expect(daves.status).toBe(200);
    expect(daves.body.memories.map((m) => m.id)).not.toContain(id);
  });

  it('memory_recall: "category": null finds the memory; every field the client prints is there', async () => {
    const id = storedId(
      await alice().tools.memory_store({
        content: `Flaky ${marker} integration tests are quarantined, not retried`,
        category: 'decisions',
        tags: 'testing,ci',
        importance: 0.8,
        expanded_keywords: 'flaky tests quarantine retry policy',
      }),
    );
    const body = {
      context: `flaky ${marker} tests`,
      expanded_query: 'quarantine retry integration',
      category: null,
      sort_by: 'importance',
      limit: 10,
    };
    const res = await alice().raw<{ memories: Row[] }>('POST', '/api/memories/recall', body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const hit = res.body.memories.find((m) => m.id === id);
    expect(hit).toMatchObject({
      id,
      category: 'decisions',
      importance: 0.8,
      content: expect.stringContaining('quarantined'),
      tags: 'testing,ci',
      created_at: expect.any(String),
    });
    expect(Number.isNaN(Date.parse(String(hit?.created_at)))).toBe(false);

    // The client asks for (and prints) importance order.
    await alice().tools.memory_store({
      content: `Flaky ${marker} tests once ran twice a night`,
      importance: 0.2,
    });
    const ordered = await alice().raw<{ memories: Row[] }>('POST', '/api/memories/recall', body);
    const importances = ordered.body.memories.map((m) => Number(m.importance));
    expect(importances.length).toBeGreaterThan(1);
    expect(importances).toEqual([...importances].sort((a, b) => b - a));

    const text = await alice().tools.memory_recall({
      context: body.context,
      expanded_query: body.expanded_query,
    });
    expect(text).toMatch(/^Found \d+ memories \(by importance\):/);
    expect(text).toContain(`#${id} [decisions] (importance: 0.8) Flaky ${marker} integration tests`);
    expect(text).toContain('Tags: testing,ci | Stored: ');

    const byRelevance = await alice().tools.memory_recall({ context: body.context, sort_by: 'relevance' });
    expect(byRelevance).toMatch(/^Found \d+ memories \(by relevance\):/);
    const filtered = await alice().tools.memory_recall({ context: body.context, category: 'preferences' });
    expect(filtered).toBe(`No memories found matching: ${body.context} in category 'preferences'`);

    expect(await bob().tools.memory_recall({ context: body.context })).toContain(`#${id} [decisions]`);
    expect(await dave().tools.memory_recall({ context: body.context })).toBe(
      `No memories found matching: ${body.context}`,
    );
  });

  it('memory_recall: a made-up word finds nothing — "No memories found", not the nearest memories', async () => {
    // In dave's tenant, whose only memory is this one: no random marker in it, so the similarities
    // below are the same every run (0.15–0.17 for these words against it; the floor is 0.4).
    await dave().tools.memory_store({
      content: 'The payments service keeps its webhook secrets in Vault',
      category: 'facts',
    });
    for (const context of ['zorblaxification', 'quimfrazzle snerdlewick']) {
      expect(await dave().tools.memory_recall({ context })).toBe(`No memories found matching: ${context}`);
      const rest = await dave().raw('POST', '/api/memories/recall', { context, limit: 10 });
      expect(rest.status).toBe(200);
      expect(rest.body).toMatchObject({ memories: [] });
    }
    // A question about a name no memory mentions, or on a topic the memories lack, finds nothing
    // either, though each shares a word with the memory ("service", "keeps").
    for (const context of ['Who owns the sneemflix service?', 'How long does sourdough bread keep fresh?']) {
      expect(await dave().tools.memory_recall({ context })).toBe(`No memories found matching: ${context}`);
    }
    // Thin coverage: one topical word of the question is in the memory ("webhook", "vault",
    // "secrets"), the rest is another topic, and the memory is not close in meaning (cosine 0.21–0.32,
    // the thin-coverage floor is 0.35): nothing. With RECALL_THIN_COVERAGE_FLOOR=0.2 each answers.
    for (const context of [
      'Which webhook sends the gardening club newsletter?',
      "Who guards the vault of the museum's paintings and sculptures?",
      'What secrets did the medieval alchemists keep about turning lead into gold?',
    ]) {
      expect(await dave().tools.memory_recall({ context })).toBe(`No memories found matching: ${context}`);
    }
    // As few words in common ("payment"), but close in meaning (0.50): found, and explain says why.
    const paraphrase = await dave().raw<{ memories: Row[] }>('POST', '/api/memories/recall', {
      context: 'Where are the payment credentials for callbacks stored?',
      limit: 10,
      explain: true,
    });
    expect(paraphrase.body.memories[0]?.content).toContain('payments service keeps its webhook secrets');
    expect((paraphrase.body.memories[0]?.explain as Row | undefined)?.relevance).toMatchObject({
      passed: 'meaning',
    });
    // A question that shares its topic with the memory still finds it.
    expect(await dave().tools.memory_recall({ context: 'where are the webhook secrets?' })).toContain(
      'payments service keeps its webhook secrets',
    );
    expect(
      await dave().tools.memory_recall({ context: 'Who keeps the payments service secrets?' }),
    ).toContain('payments service keeps its webhook secrets');
  });

  it('memory_list: ?limit=20 and ?limit=20&category=… answer memories with the fields the client prints', async () => {
    const id = storedId(
      await alice().tools.memory_store({
        content: `${marker} prefers squash merges`,
        category: 'preferences',
        importance: 0.5,
        expanded_keywords: 'git merge squash history preference',
      }),
    );
    const res = await alice().raw<{ memories: Row[] }>('GET', '/api/memories?limit=20&category=preferences');
    expect(res.status).toBe(200);
    expect(res.body.memories.find((m) => m.id === id)).toMatchObject({
      id,
      category: 'preferences',
      content: `${marker} prefers squash merges`,
      importance: 0.5,
      tags: '',
      created_at: expect.any(String),
    });
    const text = await alice().tools.memory_list({ category: 'preferences' });
    expect(text).toMatch(/^Recent memories in 'preferences' \(\d+ shown\):/);
    expect(text).toContain(
      `#${id} [preferences] ${marker} prefers squash merges\n  Importance: 0.5 | Tags: none | Stored: `,
    );
    expect(await alice().tools.memory_list({})).toMatch(/^Recent memories \(\d+ shown\):/);
    expect(await alice().tools.memory_list({ category: 'people' })).toBe("No memories in category 'people'");
    expect(await dave().tools.memory_list({})).not.toContain(marker);
  });

  it('memory_update: PUT with only the given fields answers JSON; a teammate gets 403, another tenant 404', async () => {
    const id = storedId(
      await alice().tools.memory_store({
        content: `${marker} staging runs on port 8443`,
        expanded_keywords: 'staging port',
      }),
    );
    expect(
      await alice().tools.memory_update({
        id,
        content: `${marker} staging runs on port 9443`,
        importance: 0.7,
      }),
    ).toBe(`Updated memory #${id}`);
    expect(await alice().tools.memory_update({ id, tags: 'infra' })).toBe(`Updated memory #${id}`);
    const got = await alice().raw('GET', `/api/memories/${id}`);
    expect(got.body).toMatchObject({
      content: `${marker} staging runs on port 9443`,
      importance: 0.7,
      tags: 'infra',
    });

    await expect(bob().tools.memory_update({ id, content: 'bob was here' })).rejects.toMatchObject({
      status: 403,
    });
    await expect(dave().tools.memory_update({ id, content: 'dave was here' })).rejects.toMatchObject({
      status: 404,
    });
    expect((await alice().raw('GET', `/api/memories/${id}`)).body).toMatchObject({
      content: expect.stringContaining('9443'),
    });
  });

  it('memory_delete: DELETE answers {deleted, preview}; repeated, still 200; teammate 403, another tenant 404', async () => {
    const content = `${marker} the old CI runner pool is decommissioned and its images are archived`;
    const id = storedId(await alice().tools.memory_store({ content, expanded_keywords: 'ci runner pool' }));
    await expect(bob().tools.memory_delete({ id })).rejects.toMatchObject({ status: 403 });
    await expect(dave().tools.memory_delete({ id })).rejects.toMatchObject({ status: 404 });

    expect(await alice().tools.memory_delete({ id })).toBe(
      `Deleted memory #${id}: ${content.slice(0, 50)}...`,
    );
    expect(await alice().tools.memory_delete({ id })).toBe(`Deleted memory #${id}: [already deleted]...`);
    expect((await alice().raw('GET', `/api/memories/${id}`)).status).toBe(404);
  });

  it('secret_get: POST …/secret without a body answers {id, category, content}, for a plain memory too', async () => {
    const plainId = storedId(
      await alice().tools.memory_store({
        content: `${marker} on-call rotates on Mondays`,
        category: 'people',
      }),
    );
    const plain = await alice().raw('POST', `/api/memories/${plainId}/secret`);
    expect(plain.status, JSON.stringify(plain.body)).toBe(200);
    expect(plain.body).toMatchObject({
      id: plainId,
      category: 'people',
      content: `${marker} on-call rotates on Mondays`,
    });
    expect(await alice().tools.secret_get({ id: plainId })).toBe(
      `#${plainId} [people] ${marker} on-call rotates on Mondays`,
    );

    const secret = `${marker} the staging admin password is hunter2-but-longer`;
    const sensitiveId = storedId(
      await alice().tools.memory_store({ content: secret, force_sensitive: true }),
    );
    const listed = await alice().raw<{ memories: Row[] }>('GET', '/api/memories?limit=500');
    const row = listed.body.memories.find((m) => m.id === sensitiveId);
    expect(row).toMatchObject({
      is_sensitive: true,
      content: expect.stringContaining(`secret_get(id=${sensitiveId})`),
    });
    expect(String(row?.content)).not.toContain('hunter2');
    expect(await alice().tools.secret_get({ id: sensitiveId })).toBe(`#${sensitiveId} [facts] ${secret}`);

    // A teammate sees the redacted row but may not reveal it; another tenant does not see it at all.
    await expect(bob().tools.secret_get({ id: sensitiveId })).rejects.toMatchObject({ status: 403 });
    await expect(dave().tools.secret_get({ id: sensitiveId })).rejects.toMatchObject({ status: 404 });
  });

  it('import: one invalid item answers 422 naming its index and inserts nothing; a valid batch answers in order', async () => {
    const batch = [
      { content: `${marker} import first`, category: 'facts' },
      { content: '', category: 'facts' },
      { content: `${marker} import third` },
    ];
    const bad = await alice().raw<{ detail: string }>('POST', '/api/memories/import', batch);
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toMatch(/\b1\b.*content/);
    const listed = await alice().raw<{ memories: Row[] }>('GET', '/api/memories?limit=500');
    expect(listed.body.memories.filter((m) => String(m.content).includes('import first'))).toEqual([]);

    const good = await alice().raw<Row[]>('POST', '/api/memories/import', [batch[0], batch[2]]);
    expect(good.status).toBe(200);
    expect(good.body).toEqual([
      { id: expect.any(Number), category: 'facts', importance: 0.5 },
      { id: expect.any(Number), category: 'facts', importance: 0.5 },
    ]);
  });

  it('literal paths win over {id}, and a non-integer {id} answers 422', async () => {
    const migrate = await alice().raw('POST', '/api/memories/migrate-secrets');
    expect(migrate.status, JSON.stringify(migrate.body)).toBe(200);
    expect(migrate.body).toEqual({ migrated: expect.any(Number) });
    expect((await alice().raw('GET', '/api/memories/sync')).status).toBe(200);

    for (const [method, path] of [
      ['GET', '/api/memories/abc'],
      ['PUT', '/api/memories/abc'],
      ['DELETE', '/api/memories/abc'],
      ['POST', '/api/memories/abc/secret'],
      ['DELETE', '/api/memories/1.5'],
    ] as const) {
      const res = await alice().raw(method, path, method === 'PUT' ? { content: 'x' } : undefined);
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(422);
    }
  });

  it('errors reach the client as "API error <status>: <body>" with a JSON detail', async () => {
    const error = await alice()
      .tools.memory_delete({ id: 999_999_999 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClientApiError);
    expect(error).toMatchObject({ status: 404, body: { detail: expect.any(String) } });
    expect((error as ClientApiError).message).toMatch(/^API error 404: \{"detail":/);
    const unauthenticated = await claudeMemoryMcpClient(env.url(), 'wrong-key').raw(
      'GET',
      '/api/memories?limit=20',
    );
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.body).toMatchObject({ detail: expect.any(String) });
  });
});
