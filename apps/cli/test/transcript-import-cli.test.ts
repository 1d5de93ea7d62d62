import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@app/config';
import { runCli } from '../src/cli';
import { fakeGithubToken } from '../../../test/support/fake-secrets';
import { withDb } from '../../../test/support/superuser-db';

const env = () => ({ DATABASE_URL: inject('databaseUrl') });
const FIXTURE = join(__dirname, '../../../libs/sessions/test/fixtures/claude-code-transcript.jsonl');

async function cli(args: string[]) {
  let out = '';
  let err = '';
  const code = await runCli(args, {
    // Not a terminal: progress comes as plain lines.
    io: { out: (t) => void (out += t), err: (t) => void (err += t) },
    loadConfig: () => loadConfig(env()),
  });
  return { code, out, err };
}

describe('CLI import claude-code', () => {
  const tenant = `cli-t-${randomBytes(4).toString('hex')}`;
  const sessionId = randomUUID();
  const token = fakeGithubToken();
  let dir: string;
  let file: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'transcript-import-'));
    file = join(dir, `${sessionId}.jsonl`);
    const text = (await readFile(FIXTURE, 'utf8'))
      .replaceAll('{{SESSION_ID}}', sessionId)
      .replaceAll('{{GITHUB_TOKEN}}', token);
    await writeFile(file, text);
    expect((await cli(['users', 'create', 'alice', '--tenant', tenant])).code).toBe(0);
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('imports a transcript as an ended session, with progress lines on stderr starting at the real total', async () => {
    const run = await cli([
      'import',
      'claude-code',
      '--user',
      'alice',
      '--file',
      file,
      '--git-remote',
      'https://github.com/acme/atlas.git',
      '--tenant',
      tenant,
    ]);
    expect(run, run.err).toMatchObject({ code: 0, err: 'imported 12/12 lines\n' });
    expect(run.out).toMatch(
      new RegExp(
        `^Imported session ${sessionId} for "alice": 8 events \\(2 lines skipped\\)\\. Job [0-9a-f-]{36} `,
      ),
    );
    const { rows } = await withDb((db) =>
      db.query(
        `SELECT s.status, s.project, s.summary, (SELECT string_agg(payload::text, '') FROM session_events e WHERE e.session_id = s.id) AS events
           FROM sessions s WHERE s.id = $1`,
        [sessionId],
      ),
    );
    expect(rows[0]).toMatchObject({
      status: 'ended',
      project: 'github.com/acme/atlas',
      summary: 'Switch the login flow to pnpm scripts',
    });
    expect((rows[0] as { events: string }).events).not.toContain(token);
  });

  it('answers --json on stdout, keeps stderr to plain lines, and stores nothing twice on a second import', async () => {
    const run = await cli([
      '--json',
      'import',
      'claude-code',
      '--user',
      'alice',
      '--file',
      file,
      '--tenant',
      tenant,
    ]);
    expect(run.code).toBe(0);
    expect(run.err).toBe('imported 12/12 lines\n');
    expect(JSON.parse(run.out)).toMatchObject({
      session_id: sessionId,
      events: 0,
      duplicates: 8,
      skipped: 2,
      user: 'alice',
    });
  });

  it('refuses a file that is not a transcript (exit 2), and options that do not fit the source', async () => {
    const bad = join(dir, 'notes.txt');
    await writeFile(bad, 'just some notes\n');
    const run = await cli(['import', 'claude-code', '--user', 'alice', '--file', bad, '--tenant', tenant]);
    expect(run.code).toBe(2);
    expect(run.err).toContain('No Claude Code transcript entry with a sessionId');
    expect((await cli(['import', 'cursor', '--user', 'alice', '--file', bad, '--tenant', tenant])).code).toBe(
      2,
    );
    const mixed = await cli([
      'import',
      '--user',
      'alice',
      '--file',
      bad,
      '--project',
      'x',
      '--tenant',
      tenant,
    ]);
    expect(mixed).toMatchObject({ code: 2, err: expect.stringContaining('--project and --git-remote') });
  });
});
