import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@app/config';
import { GetAdminJobUseCase } from '@app/jobs';
import { type NewMemory } from '@app/memories';
import { runCli } from '../src/cli';
import { embeddingHarness, type EmbeddingHarness } from '../../../test/support/embedding-harness';
import { waitFor } from '../../../test/support/wait-for';
import { newMemory } from '@app/testing';

/**
 * `npm run cli -- embeddings reindex --model <id>`: the CLI starts the job through the database
 * and the outbox (no API), and follows the jobs row with a progress bar. The real offline model is
 * loaded by the CLI (to validate it) and by the in-process worker that runs the job.
 */
const note = (content: string): NewMemory => newMemory(content);

describe('cli embeddings reindex (real glove-sif-100d model, in-process worker)', () => {
  const MODEL = 'glove-sif-100d';
  const root = resolve(__dirname, '..', '..', '..');
  const modelsDir = resolve(root, 'models');
  let h: EmbeddingHarness;

  const cli = async (args: string[]) => {
    let out = '';
    let err = '';
    const code = await runCli(args, {
      io: { out: (t) => void (out += t), err: (t) => void (err += t) },
      loadConfig: () =>
        loadConfig({ DATABASE_URL: h.url, EMBEDDING_MODEL: MODEL, MODELS_DIR: modelsDir, LOG_LEVEL: 'warn' }),
    });
    return { code, out, err };
  };

  beforeAll(async () => {
    const build = spawnSync(
      process.execPath,
      ['scripts/build-embedding-model.mjs', '--models-dir', modelsDir, '--quiet'],
      {
        cwd: root,
        encoding: 'utf8',
      },
    );
    if (build.status !== 0) throw new Error(`model build failed: ${build.stderr}`);
    h = await embeddingHarness('reindex_cli', { EMBEDDING_MODEL: MODEL, MODELS_DIR: modelsDir });
    const alice = await h.principal('alice');
    for (const content of ['The deploy uses blue-green switching', 'Lint runs before the unit tests']) {
      await h.create.execute(alice, note(content));
    }
  }, 180_000);
  afterAll(async () => h?.close());

  it('creates the job through the database and outbox, follows it with a progress bar until done', async () => {
    const run = await cli(['embeddings', 'reindex', '--model', MODEL, '--tenant', h.tenant.slug]);
    expect(run.err).not.toMatch(/error/i);
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/Reindex job [0-9a-f-]{36} to "glove-sif-100d" queued/);
    expect(run.out).toMatch(/Reindex finished: (\d+) of \1 memories; "glove-sif-100d" is the read model/);
    expect(run.err).toMatch(/reindex \[[^\]]*\] 100% \| \d+\/\d+ memories \| succeeded/);
  });

  it('returns at once with --no-wait and prints the job id as JSON', async () => {
    const run = await cli([
      '--json',
      'embeddings',
      'reindex',
      '--model',
      MODEL,
      '--tenant',
      h.tenant.slug,
      '--no-wait',
    ]);
    expect(run.code).toBe(0);
    const { job_id: jobId } = JSON.parse(run.out) as { job_id: string };
    const admin = await h.principal('cli-admin', true);
    const done = await waitFor('job finished', async () => {
      const current = await h.app.get(GetAdminJobUseCase).execute(admin, jobId);
      return current.status === 'succeeded' ? current : undefined;
    });
    expect(done.params).toEqual({ model: MODEL });
  });

  it('refuses a model it cannot load, naming where it looked', async () => {
    const run = await cli(['embeddings', 'reindex', '--model', 'no-such-model', '--tenant', h.tenant.slug]);
    // An argument the service refuses as invalid, like any invalid input (exit 1 is for failures).
    expect(run.code).toBe(2);
    expect(run.err).toContain('no-such-model');
    expect(run.err).toContain(modelsDir);
  });
});
