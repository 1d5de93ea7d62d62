import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientTeam, storeBody } from '../support/claude-memory-mcp-team';

/**
 * claude-memory-mcp's sharing tools (HTTP mode) against the built API, with the requests that
 * client sends and the shapes of claude-memory-mcp's server: share/unshare by memory and by tag,
 * shared-with-me, my-shares. See docs/compatibility.md.
 */

type Row = Record<string, unknown>;

describe('claude-memory-mcp client (HTTP mode): sharing tools', () => {
  const env = clientTeam();
  const { alice, bob, dave } = env;
  const marker = `s${randomUUID().slice(0, 8)}`;

  beforeAll(() => env.start());
  afterAll(() => env.stop());

  /** The client's store body; sharing only shows on a memory teammates cannot already read. */
  const storePrivate = async (content: string, tags = '') => {
    const res = await alice().raw<{ id: number }>(
      'POST',
      '/api/memories',
      storeBody(content, { tags, visibility: 'private' }),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.id;
  };

  it('memory_share: POST …/share answers {shared, with, permission}; the grant reads, then writes', async () => {
    const content = `${marker} the payments sandbox key rotates every 90 days`;
    const id = await storePrivate(content);
    expect((await bob().raw('GET', `/api/memories/${id}`)).status).toBe(404);

    const res = await alice().raw('POST', `/api/memories/${id}/share`, {
      shared_with: 'bob',
      permission: 'read',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ shared: id, with: 'bob', permission: 'read' });
    expect((await bob().raw('GET', `/api/memories/${id}`)).body).toMatchObject({ id, content });
    expect(await bob().tools.memory_recall({ context: `${marker} payments sandbox` })).toContain(
      `#${id} [facts]`,
    );
    await expect(bob().tools.memory_update({ id, content: 'bob edits' })).rejects.toMatchObject({
      status: 403,
    });

    expect(await alice().tools.memory_share({ id, shared_with: 'bob', permission: 'write' })).toBe(
      `Shared memory #${id} with bob (permission: write)`,
    );
    expect(await bob().tools.memory_update({ id, content: `${content}, confirmed by bob` })).toBe(
      `Updated memory #${id}`,
    );
    // Only the owner deletes, even with a write share.
    await expect(bob().tools.memory_delete({ id })).rejects.toMatchObject({ status: 403 });
    expect((await dave().raw('GET', `/api/memories/${id}`)).status).toBe(404);
  });

  it('memory_share: refused for yourself (400), for a memory you do not own (403 / 404), across tenants', async () => {
    const id = await storePrivate(`${marker} only alice decides who reads this`);
    await expect(alice().tools.memory_share({ id, shared_with: 'alice' })).rejects.toMatchObject({
      status: 400,
    });
    await expect(dave().tools.memory_share({ id, shared_with: 'bob' })).rejects.toMatchObject({
      status: 404,
    });
    await expect(bob().tools.memory_share({ id, shared_with: 'bob' })).rejects.toMatchObject({ status: 404 });

    const teamId = Number(
      /#(\d+)/.exec(await alice().tools.memory_store({ content: `${marker} team runbook for deploys` }))?.[1],
    );
    await expect(bob().tools.memory_share({ id: teamId, shared_with: 'admin' })).rejects.toMatchObject({
      status: 403,
    });

    // A user of another tenant is not a user here: nothing is granted.
    const crossTenant = await alice().raw('POST', `/api/memories/${id}/share`, { shared_with: 'dave' });
    expect(crossTenant.status).toBeGreaterThanOrEqual(400);
    expect(crossTenant.status).toBeLessThan(500);
    expect((await dave().raw('GET', `/api/memories/${id}`)).status).toBe(404);
  });

  it('memory_shared_with_me and memory_my_shares: the shapes and lines the client prints', async () => {
    const content = `${marker} the incident channel is #inc-payments`;
    const id = await storePrivate(content, 'incidents');
    await alice().tools.memory_share({ id, shared_with: 'bob' });

    const mine = await bob().raw<{ memories: Row[] }>('GET', '/api/memories/shared-with-me');
    expect(mine.status, JSON.stringify(mine.body)).toBe(200);
    expect(mine.body.memories.find((m) => m.id === id)).toMatchObject({
      id,
      content,
      category: 'facts',
      tags: 'incidents',
      shared_by: 'alice',
      permission: 'read',
    });
    const text = await bob().tools.memory_shared_with_me();
    expect(text).toMatch(/^Memories shared with you \(\d+\):/);
    expect(text).toContain(`#${id} [facts] (from: alice, read) ${content}\n  Tags: incidents`);

    const shares = await alice().raw<{ memory_shares: Row[]; tag_shares: Row[] }>(
      'GET',
      '/api/memories/my-shares',
    );
    expect(shares.status, JSON.stringify(shares.body)).toBe(200);
    expect(shares.body.tag_shares).toEqual(expect.any(Array));
    expect(shares.body.memory_shares.find((s) => s.memory_id === id)).toMatchObject({
      memory_id: id,
      shared_with: 'bob',
      permission: 'read',
      preview: expect.stringContaining(`${marker} the incident channel`),
    });
    expect(await alice().tools.memory_my_shares()).toContain(
      `  #${id} -> bob (read): ${marker} the incident channel`,
    );

    expect(await dave().tools.memory_shared_with_me()).toBe('No memories have been shared with you');
    expect(await dave().tools.memory_my_shares()).toBe("You haven't shared any memories or tags");
  });

  it('memory_unshare: DELETE …/share/{user} answers {unshared, from} and takes the access away', async () => {
    const id = await storePrivate(`${marker} vendor contract renews in March`);
    await alice().tools.memory_share({ id, shared_with: 'bob' });
    await expect(bob().tools.memory_unshare({ id, shared_with: 'bob' })).rejects.toMatchObject({
      status: 403,
    });
    await expect(dave().tools.memory_unshare({ id, shared_with: 'bob' })).rejects.toMatchObject({
      status: 404,
    });

    const res = await alice().raw('DELETE', `/api/memories/${id}/share/bob`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ unshared: id, from: 'bob' });
    expect((await bob().raw('GET', `/api/memories/${id}`)).status).toBe(404);
    expect(await bob().tools.memory_shared_with_me()).not.toContain(`#${id} `);
    expect(await alice().tools.memory_unshare({ id, shared_with: 'bob' })).toBe(
      `Revoked sharing of memory #${id} from bob`,
    );
  });

  it('memory_share_tag / memory_unshare_tag: a live rule for present and future memories; DELETE takes a JSON body', async () => {
    const tag = `ops-${marker}`;
    const before = await storePrivate(`${marker} pager escalation goes to the SRE lead`, `${tag},pager`);
    await expect(alice().tools.memory_share_tag({ tag, shared_with: 'alice' })).rejects.toMatchObject({
      status: 400,
    });

    const res = await alice().raw('POST', '/api/memories/share-tag', {
      tag,
      shared_with: 'bob',
      permission: 'read',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ shared_tag: tag, with: 'bob', permission: 'read' });
    expect(await alice().tools.memory_share_tag({ tag, shared_with: 'bob' })).toBe(
      `Shared tag '${tag}' with bob (permission: read)`,
    );
    const after = await storePrivate(`${marker} the status page is updated by the incident lead`, tag);

    const seen = await bob().raw<{ memories: Row[] }>('GET', '/api/memories/shared-with-me');
    const byId = new Map(seen.body.memories.map((m) => [m.id, m]));
    expect(byId.get(before)).toMatchObject({ shared_by: 'alice', permission: 'read' });
    expect(byId.get(after)).toMatchObject({ shared_by: 'alice', permission: 'read' });
    expect((await bob().raw('GET', `/api/memories/${after}`)).status).toBe(200);
    expect((await dave().raw('GET', `/api/memories/${after}`)).status).toBe(404);

    const shares = await alice().raw<{ tag_shares: Row[] }>('GET', '/api/memories/my-shares');
    expect(shares.body.tag_shares).toContainEqual(
      expect.objectContaining({ tag, shared_with: 'bob', permission: 'read' }),
    );
    expect(await alice().tools.memory_my_shares()).toContain(`  tag '${tag}' -> bob (read)`);

    const removed = await alice().raw('DELETE', '/api/memories/share-tag', { tag, shared_with: 'bob' });
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expect(removed.body).toEqual(expect.any(Object));
    expect(await alice().tools.memory_unshare_tag({ tag, shared_with: 'bob' })).toBe(
      `Revoked tag sharing of '${tag}' from bob`,
    );
    expect((await bob().raw('GET', `/api/memories/${after}`)).status).toBe(404);
    const left = await alice().raw<{ tag_shares: Row[] }>('GET', '/api/memories/my-shares');
    expect(left.body.tag_shares.filter((s) => s.tag === tag)).toEqual([]);
  });

  it('sharing paths: literal segments win over {id}; a non-integer {id} answers 422', async () => {
    expect((await alice().raw('GET', '/api/memories/shared-with-me')).status).toBe(200);
    expect((await alice().raw('GET', '/api/memories/my-shares')).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', '/api/memories/abc/share', { shared_with: 'bob', permission: 'read' }],
      ['DELETE', '/api/memories/abc/share/bob', undefined],
    ] as const) {
      const res = await alice().raw(method, path, body);
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(422);
    }
  });
});
