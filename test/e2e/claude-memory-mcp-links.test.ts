import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientTeam, storeBody } from '../support/claude-memory-mcp-team';

/**
 * Typed links between memories with claude-memory-mcp's server shapes (its client does not call
 * them; its server and UI do): create, show on the memory, delete. See docs/compatibility.md.
 */

describe("memory links with claude-memory-mcp's server shapes", () => {
  const env = clientTeam();
  const { alice, dave } = env;
  const marker = `l${randomUUID().slice(0, 8)}`;

  beforeAll(() => env.start());
  afterAll(() => env.stop());

  const store = async (content: string) =>
    (await alice().api('POST', '/api/memories', storeBody(content, { category: 'decisions' }))).id as number;
  const link = (src: number, body: Record<string, unknown>) =>
    alice().raw('POST', `/api/memories/${src}/links`, body);

  it('POST …/links answers {id, src_id, dst_id, link_type, created_at}; the memory shows links_out and links_in', async () => {
    const oldId = await store(`${marker} builds use Node 18`);
    const newId = await store(`${marker} builds use Node 20`);
    const res = await link(newId, { target_id: oldId, link_type: 'supersedes' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      id: expect.any(Number),
      src_id: newId,
      dst_id: oldId,
      link_type: 'supersedes',
      created_at: expect.any(String),
    });
    expect((await alice().raw('GET', `/api/memories/${newId}`)).body).toMatchObject({
      links_out: [{ id: oldId, type: 'supersedes' }],
      links_in: [],
    });
    expect((await alice().raw('GET', `/api/memories/${oldId}`)).body).toMatchObject({
      links_out: [],
      links_in: [{ id: newId, type: 'supersedes' }],
    });

    expect((await link(newId, { target_id: oldId, link_type: 'supersedes' })).status).toBe(409);
    // A supersedes cycle is refused.
    expect((await link(oldId, { target_id: newId, link_type: 'supersedes' })).status).toBe(422);
  });

  it('refuses a self link, an unknown type, and a memory the caller cannot see', async () => {
    const a = await store(`${marker} link source`);
    const b = await store(`${marker} link target`);
    expect((await link(a, { target_id: a, link_type: 'see-also' })).status).toBe(422);
    expect((await link(a, { target_id: b, link_type: 'related' })).status).toBe(422);
    expect((await link(a, { target_id: 987654321, link_type: 'see-also' })).status).toBe(404);
    const daves = await dave().raw('POST', `/api/memories/${a}/links`, {
      target_id: b,
      link_type: 'see-also',
    });
    expect(daves.status).toBe(404);
  });

  it('DELETE …/links/{dst}/{type} answers {unlinked: {src_id, dst_id, link_type}}, then 404', async () => {
    const hub = await store(`${marker} runbook hub`);
    const detail = await store(`${marker} runbook detail`);
    expect((await link(detail, { target_id: hub, link_type: 'part-of' })).status).toBe(200);
    const path = `/api/memories/${detail}/links/${hub}/part-of`;
    expect((await dave().raw('DELETE', path)).status).toBe(404);

    const res = await alice().raw('DELETE', path);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ unlinked: { src_id: detail, dst_id: hub, link_type: 'part-of' } });
    expect((await alice().raw('DELETE', path)).status).toBe(404);
    expect((await alice().raw('DELETE', `/api/memories/${detail}/links/${hub}/related`)).status).toBe(422);
  });
});
