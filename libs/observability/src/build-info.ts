import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Gauge, type Registry } from 'prom-client';
import { type AppConfig } from '@app/config';

export const BUILD_INFO = Symbol('BUILD_INFO');
export const BUILD_INFO_METRIC = 'memsvc_build_info';

/** What `GET /version` answers and `memsvc_build_info` labels. */
export interface BuildInfo {
  /** package.json's version. */
  readonly version: string;
  /** BUILD_COMMIT, else the commit recorded at build time (dist/build-info.json); null when unknown. */
  readonly commit: string | null;
  /** The Node.js version running the process. */
  readonly node: string;
  /** When dist/ was built (ISO time); null when not recorded. */
  readonly built_at: string | null;
}

/** The repository (or image) root: the nearest folder up from here with our package.json. */
function packageRoot(from: string): string | undefined {
  for (let dir = from, i = 0; i < 8; i++, dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (
      existsSync(file) &&
      (JSON.parse(readFileSync(file, 'utf8')) as { name?: string }).name === 'memory-service'
    )
      return dir;
  }
  return undefined;
}

function readJson(file: string): Record<string, unknown> {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    return {};
  }
}

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/** Read once at start: package.json's version and the build record `scripts/write-build-info.mjs` wrote. */
export function readBuildInfo(config: Pick<AppConfig, 'build'>, root = packageRoot(__dirname)): BuildInfo {
  const pkg = root ? readJson(join(root, 'package.json')) : {};
  const recorded = root ? readJson(join(root, 'dist', 'build-info.json')) : {};
  return {
    version: text(pkg.version) ?? '0.0.0',
    commit: config.build.commit ?? text(recorded.commit),
    node: process.versions.node,
    built_at: text(recorded.built_at),
  };
}

/** `memsvc_build_info{version,commit,node} 1`: join it onto other series to see what runs where. */
export function registerBuildInfo(registry: Registry, info: BuildInfo): void {
  new Gauge({
    name: BUILD_INFO_METRIC,
    help: 'Always 1; the labels say which build runs: package version, git commit, Node.js version.',
    labelNames: ['version', 'commit', 'node'],
    registers: [registry],
  }).set({ version: info.version, commit: info.commit ?? 'unknown', node: info.node }, 1);
}
