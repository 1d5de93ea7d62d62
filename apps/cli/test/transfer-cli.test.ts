import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@app/config';
import { runCli } from '../src/cli';

const env = () => ({
  DATABASE_URL: inject('databaseUrl'),
  MEMORY_ENCRYPTION_KEY: 'cli transfer test key 42',
});
const SECRET = 'ghp_' + 'Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8';

async function cli(args: string[]) {
  let out = '';
  let err = '';
  const code = await runCli(args, {
    io: { out: (t) => void (out += t), err: (t) => void (err += t) },
    loadConfig: () => loadConfig(env()),
  });
  return { code, out, err };
}

const jsonl = (text: string) =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('CLI export and import', () => {
  const tenant = `cli-x-${randomBytes(4).toString('hex')}`;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'memory-transfer-'));
    for (const user of ['alice', 'bob', 'carol'])
      expect((await cli(['users', 'create', user, '--tenant', tenant])).code).toBe(0);
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('imports a file, exports it, and re-imports it into another user with the same fields and times', async () => {
    const source = join(dir, 'source.jsonl');
    const items = [
      { content: 'Releases are cut on Tuesdays', category: 'decisions', tags: ['release'], project: 'web' },
      {
        content: `ssh deploy key is ${SECRET}`,
        category: 'runbooks',
        created_at: '2024-05-01T10:00:00.123456Z',
      },
      { content: 'Prefer rebase', visibility: 'team', importance: 0.7, expires_at: null },
    ];
    await writeFile(source, items.map((i) => JSON.stringify(i)).join('\n') + '\n');
    const stored = await cli(['import', '--user', 'alice', '--file', source, '--tenant', tenant]);
    expect(stored, stored.err).toMatchObject({ code: 0, out: 'Imported 3 memories for "alice".\n' });
    // Not a terminal: progress as plain lines, counted against the real total.
    expect(stored.err).toBe('imported 3/3\n');

    const out = join(dir, 'alice.jsonl');
    expect((await cli(['export', '--user', 'alice', '--out', out, '--tenant', tenant])).code).toBe(0);
    const text = await readFile(out, 'utf8');
    expect(text).not.toContain(SECRET);
    const alice = jsonl(text);
    // A secret's id is reserved before the batch's rows are written, so it may come first.
    expect(alice.map((m) => m.content).sort()).toEqual(
      ['Prefer rebase', items[0].content, 'ssh deploy key is [REDACTED:github]'].sort(),
    );
    expect(alice.find((m) => m.category === 'runbooks')?.created_at).toBe('2024-05-01T10:00:00.123456+00:00');

    // Into another tenant: a teammate of alice's would be answered her team memories instead (one fact
    // once per team), and hold only the rest.
    const elsewhere = `${tenant}-b`;
    expect((await cli(['users', 'create', 'bob', '--tenant', elsewhere])).code).toBe(0);
    expect((await cli(['import', '--user', 'bob', '--file', out, '--tenant', elsewhere])).code).toBe(0);
    const bob = jsonl(
      (await cli(['export', '--user', 'bob', '--format', 'jsonl', '--tenant', elsewhere])).out,
    );
    const same = ({ id: _i, is_sensitive: _s, links: _l, shares: _sh, ...rest }: Record<string, unknown>) =>
      rest;
    expect(bob.map(same)).toEqual(alice.map(same));
    expect((await cli(['import', '--user', 'bob', '--file', out, '--tenant', tenant])).code).toBe(0);
    const teammate = jsonl(
      (await cli(['export', '--user', 'bob', '--format', 'jsonl', '--tenant', tenant])).out,
    );
    expect(teammate.map((m) => m.content)).toEqual(['ssh deploy key is [REDACTED:github]']);
  });

  it('stores nothing when one item is invalid, naming it', async () => {
    const bad = join(dir, 'bad.json');
    await writeFile(bad, JSON.stringify([{ content: 'fine' }, { content: 'fine too' }, { content: '' }]));
    const run = await cli(['import', '--user', 'carol', '--file', bad, '--tenant', tenant]);
    expect(run.code).toBe(2);
    expect(run.err).toMatch(/item 2: content/);
    expect((await cli(['export', '--user', 'carol', '--format', 'json', '--tenant', tenant])).out).toBe(
      '[]\n',
    );
  });

  it('refuses an unknown user', async () => {
    const run = await cli(['export', '--user', 'nobody', '--tenant', tenant]);
    expect(run.code).toBe(1);
    expect(run.err).toContain('not found');
  });
});
