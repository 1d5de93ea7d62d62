import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@app/config';
import { runCli } from '../src/cli';

const env = () => ({
  DATABASE_URL: inject('databaseUrl'),
  MEMORY_ENCRYPTION_KEY: 'cli project render test key 42',
});

async function cli(args: string[]) {
  let out = '';
  let err = '';
  const code = await runCli(args, {
    io: { out: (t) => void (out += t), err: (t) => void (err += t) },
    loadConfig: () => loadConfig(env()),
  });
  return { code, out, err };
}

/**
 * `project render`: writes a project's agent rule file, replacing only its marker block, and with
 * `--check` writes nothing and exits 1 when the file would change (a CI step).
 */
describe('CLI project render', () => {
  const tenant = `cli-p-${randomBytes(4).toString('hex')}`;
  const project = `github.com/acme/render-${randomBytes(3).toString('hex')}`;
  let dir: string;

  const importTeamMemories = async (items: Array<Record<string, unknown>>) => {
    const file = join(dir, `import-${randomBytes(3).toString('hex')}.jsonl`);
    const lines = items.map((item) => JSON.stringify({ project, visibility: 'team', ...item }));
    await writeFile(file, `${lines.join('\n')}\n`);
    const imported = await cli(['import', '--user', 'alice', '--file', file, '--tenant', tenant]);
    expect(imported.code, imported.err).toBe(0);
  };
  const render = (...extra: string[]) =>
    cli(['project', 'render', project, '--user', 'bob', '--tenant', tenant, ...extra]);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'memory-project-render-'));
    for (const user of ['alice', 'bob'])
      expect((await cli(['users', 'create', user, '--tenant', tenant])).code).toBe(0);
    await importTeamMemories([
      { content: 'Releases are cut on Tuesdays', category: 'decisions', importance: 0.8 },
      { content: 'The pay service is written in TypeScript', category: 'facts' },
    ]);
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('writes the file, keeps what the team wrote around the block, and checks it in CI', async () => {
    const out = join(dir, 'AGENTS.md');
    const missing = await render('--out', out, '--check');
    expect(missing).toMatchObject({ code: 1 });
    expect(missing.out).toContain(`${out} would change (missing)`);

    await writeFile(out, '# Pay\n\nRun `make test` before pushing.\n');
    const wrote = await render('--out', out);
    expect(wrote, wrote.err).toMatchObject({ code: 0 });
    expect(wrote.out).toBe(`Wrote ${out} (1 memory of ${project}).\n`);
    const written = await readFile(out, 'utf8');
    expect(written.startsWith('# Pay\n\nRun `make test` before pushing.\n\n<!-- team-memory:begin')).toBe(
      true,
    );
    expect(written).toContain('> Releases are cut on Tuesdays\n');
    expect(written).not.toContain('TypeScript');

    expect(await render('--out', out, '--check')).toMatchObject({
      code: 0,
      out: `${out} is up to date (1 memory).\n`,
    });

    // A new decision: the check fails and leaves the file as it was; a render brings it up to date.
    await importTeamMemories([{ content: 'Feature flags live in LaunchDarkly', category: 'decisions' }]);
    const stale = await render('--out', out, '--check');
    expect(stale.code).toBe(1);
    expect(stale.out).toContain(`${out} would change (out of date)`);
    expect(await readFile(out, 'utf8')).toBe(written);
    expect((await render('--out', out)).code).toBe(0);
    const updated = await readFile(out, 'utf8');
    expect(updated).toContain('> Feature flags live in LaunchDarkly\n');
    expect(updated.startsWith('# Pay\n\nRun `make test` before pushing.\n\n')).toBe(true);
    const again = await render('--out', out);
    expect(again).toMatchObject({ code: 0, out: `Kept ${out} (2 memories of ${project}).\n` });
    expect(await render('--out', out, '--check')).toMatchObject({ code: 0 });
  });

  it('writes a Cursor rule into its folder, and says what changed as JSON', async () => {
    const out = join(dir, 'repo', '.cursor', 'rules', 'team-memory.mdc');
    const first = await render('--format', 'cursor-rules', '--out', out, '--json');
    expect(first.code, first.err).toBe(0);
    expect(JSON.parse(first.out)).toMatchObject({ file: out, changed: true });
    expect(await readFile(out, 'utf8')).toMatch(/^---\ndescription: ".*"\nglobs:\nalwaysApply: true\n---\n/);
    const check = await render('--format', 'cursor-rules', '--out', out, '--check', '--json');
    expect(check.code).toBe(0);
    expect(JSON.parse(check.out)).toMatchObject({ file: out, changed: false });
  });

  it('refuses an unknown format or user', async () => {
    const badFormat = await render('--format', 'vim-md', '--out', join(dir, 'x.md'));
    expect(badFormat.code).toBe(2);
    expect(badFormat.err).toContain('format must be one of claude-md, agents-md, cursor-rules');
    const nobody = await cli(['project', 'render', project, '--user', 'nobody', '--tenant', tenant]);
    expect(nobody.code).toBe(1);
  });
});
