import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { teamFixture } from '../support/e2e-env';
import { fakeGithubToken } from '../support/fake-secrets';
import { client } from '../support/http-client';
import { startApiProcess, type ApiProcess } from '../support/processes';
import { withDb } from '../support/superuser-db';
import { waitFor } from '../support/wait-for';

const FIXTURE = readFileSync(
  join(__dirname, '../../libs/sessions/test/fixtures/claude-code-transcript.jsonl'),
  'utf8',
);
const LIMIT = 64 * 1024;
const PATH = '/api/import/claude-code';

interface ImportBody {
  session_id: string;
  job_id: string | null;
  events: number;
  duplicates: number;
  lines: number;
  skipped: number;
  ignored: number;
  already_imported: boolean;
}
interface JobBody {
  id: string;
  kind: string;
  status: string;
  progress: { total: number | null; done: number; failed: number };
}

/** Sends `chunks` as a chunked upload (no Content-Length), one chunk at a time, as a file streams. */
async function upload(
  url: string,
  key: string | undefined,
  chunks: readonly string[],
  type = 'application/x-ndjson',
) {
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(new TextEncoder().encode(chunks[i++]));
      else controller.close();
    },
  });
  const res = await fetch(`${url}${PATH}`, {
    method: 'POST',
    headers: { 'content-type': type, ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body,
    duplex: 'half',
  } as RequestInit);
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    body: (text ? JSON.parse(text) : undefined) as Record<string, unknown>,
  };
}

/**
 * Writes `chunks` one by one (chunked, or with a declared Content-Length) and resolves with the
 * answer as soon as it comes, whatever happens to the rest of the upload. A server that answers and
 * closes while the body is still being sent may reset the connection before this client has read the
 * answer (EPIPE, ECONNRESET): the upload is then sent again, up to three times.
 */
async function rawUpload(url: string, key: string, chunks: readonly string[], contentLength?: number) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await rawUploadOnce(url, key, chunks, contentLength);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (attempt >= 3 || (code !== 'EPIPE' && code !== 'ECONNRESET')) throw error;
    }
  }
}

function rawUploadOnce(url: string, key: string, chunks: readonly string[], contentLength?: number) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    let answered = false;
    const req = httpRequest(
      url,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/x-ndjson',
          ...(contentLength === undefined ? {} : { 'content-length': String(contentLength) }),
        },
      },
      (res) => {
        answered = true;
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    void (async () => {
      for (const chunk of chunks) {
        if (answered || req.destroyed) return;
        if (!req.write(chunk)) await new Promise((r) => req.once('drain', r));
      }
      if (contentLength === undefined) req.end();
      // A write that fails ends up in the request's 'error' event; nothing to do here.
    })().catch(() => undefined);
  });
}

/** The transcript split into pieces that cut lines (and JSON) in the middle. */
const pieces = (text: string, size = 173) =>
  Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));

describe('POST /api/import/claude-code (built API)', () => {
  // No REDIS_URL: the API's in-process queue runs the sessions.import job.
  const team = teamFixture({ REDIS_URL: '', TRANSCRIPT_IMPORT_MAX_BYTES: String(LIMIT) });
  const sessionId = randomUUID();
  const token = fakeGithubToken();
  const transcript = FIXTURE.replaceAll('{{SESSION_ID}}', sessionId).replaceAll('{{GITHUB_TOKEN}}', token);
  let api: ApiProcess;
  let imported: Awaited<ReturnType<typeof upload>>;

  beforeAll(async () => {
    api = await startApiProcess(team.env);
    imported = await upload(api.url, team.keys.alice, pieces(transcript));
  });
  afterAll(async () => api?.stop());

  const alice = () => client(api.url, team.keys.alice);
  const finished = (path: string) =>
    waitFor('the import job to finish', async () => {
      const res = await alice().get<JobBody>(path);
      return res.body.status === 'succeeded' ? res.body : undefined;
    });

  it('stores a streamed transcript and answers 202 with the counts and the job in Location', async () => {
    const body = imported.body as unknown as ImportBody;
    expect(imported.status, JSON.stringify(body)).toBe(202);
    expect(body).toMatchObject({
      session_id: sessionId,
      events: 8,
      duplicates: 0,
      lines: 12,
      skipped: 2,
      ignored: 2,
      already_imported: false,
    });
    expect(imported.headers.get('location')).toBe(`/api/jobs/${body.job_id}`);
    const session = await alice().get<Record<string, unknown>>(`/api/sessions/${sessionId}`);
    expect(session.body).toMatchObject({
      agent: 'claude-code',
      status: 'ended',
      summary: 'Switch the login flow to pnpm scripts',
      started_at: '2025-05-26T07:27:40.079000+00:00',
      events_total: 8,
    });
    const { rows } = await withDb((db) =>
      db.query(`SELECT payload::text AS p FROM session_events WHERE session_id = $1`, [sessionId]),
    );
    expect(rows).toHaveLength(8);
    for (const row of rows as Array<{ p: string }>) expect(row.p).not.toContain(token);
  });

  it('lets the job’s creator follow its progress to the end; another user gets 404, an admin reads it', async () => {
    const location = imported.headers.get('location') ?? '';
    const job = await finished(location);
    expect(job).toMatchObject({ kind: 'sessions.import', progress: { total: 8, done: 8, failed: 0 } });
    expect(
      (await alice().get<Record<string, number>>(`/api/sessions/${sessionId}`)).body.events_processed,
    ).toBe(8);
    expect(await client(api.url, team.keys.bob).get(location)).toMatchObject({
      status: 404,
      body: { code: 'job_not_found' },
    });
    expect((await client(api.url, team.keys.admin).get(location)).status).toBe(200);
    expect((await alice().get(`/api/jobs/${randomUUID()}`)).status).toBe(404);
    expect((await alice().get('/api/jobs/not-a-job')).status).toBe(404);
    expect((await client(api.url).get(location)).status).toBe(401);
  });

  it('answers a second import of the same transcript with 200 and already_imported, storing nothing', async () => {
    const again = await upload(api.url, team.keys.alice, [transcript], 'application/jsonl');
    expect(again).toMatchObject({
      status: 200,
      body: { session_id: sessionId, job_id: null, events: 0, duplicates: 8, already_imported: true },
    });
    expect(again.headers.get('location')).toBeNull();
    const bob = await upload(api.url, team.keys.bob, [transcript]);
    expect(bob).toMatchObject({ status: 409, body: { code: 'session_id_taken' } });
    expect((await client(api.url, team.keys.bob).get(`/api/sessions/${sessionId}`)).status).toBe(404);
  });

  it('refuses a body over TRANSCRIPT_IMPORT_MAX_BYTES with 413, streamed or declared', async () => {
    const id = randomUUID();
    const line = (i: number) =>
      `${JSON.stringify({ type: 'user', uuid: randomUUID(), sessionId: id, message: { content: `note ${i} ${'x'.repeat(200)}` } })}\n`;
    const lines = Array.from({ length: 400 }, (_, i) => line(i));
    // node:http rather than fetch: the server answers mid-upload and closes the connection, and
    // fetch reports the broken write instead of the answer (curl shows the answer).
    const streamed = await rawUpload(`${api.url}${PATH}`, team.keys.alice, lines);
    expect(streamed.status).toBe(413);
    expect(JSON.parse(streamed.body)).toMatchObject({
      code: 'body_too_large',
      detail: expect.stringContaining('TRANSCRIPT_IMPORT_MAX_BYTES'),
    });
    // Only the start is sent: the answer comes from the declared length alone.
    const declared = await rawUpload(`${api.url}${PATH}`, team.keys.alice, [line(0)], LIMIT + 1);
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body)).toMatchObject({ code: 'body_too_large' });
  });

  it('answers 422 for a body that is not a transcript and 415 for one that is not JSON Lines', async () => {
    const prose = await upload(api.url, team.keys.alice, ['hello there\n', 'this is not JSON Lines\n']);
    expect(prose).toMatchObject({ status: 422, body: { code: 'not_a_transcript' } });
    const json = await alice().post(PATH, [{ type: 'user' }]);
    expect(json).toMatchObject({ status: 415, body: { code: 'unsupported_media_type' } });
    const badQuery = await fetch(`${api.url}${PATH}?project=`, {
      method: 'POST',
      headers: { authorization: `Bearer ${team.keys.alice}`, 'content-type': 'application/x-ndjson' },
      body: transcript,
    });
    expect(badQuery.status).toBe(400);
  });

  it('needs a key (401) with sessions:write (403)', async () => {
    expect((await upload(api.url, undefined, [transcript])).status).toBe(401);
    const issued = await client(api.url, team.keys.admin).post<{ key: string }>(
      '/api/admin/users/alice/keys',
      {
        scopes: ['memories:read', 'memories:write'],
        name: 'no sessions',
      },
    );
    expect(issued.status).toBe(201);
    const denied = await upload(api.url, issued.body.key, [transcript]);
    expect(denied).toMatchObject({ status: 403 });
    expect(String(denied.body.detail)).toContain('sessions:write');
  });
});
