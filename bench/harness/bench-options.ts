import { resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** Where the shared services are; flags rather than environment, since only @app/config reads env. */
export interface ServiceOptions {
  readonly adminUrl: string;
  readonly redisUrl: string;
  readonly modelsDir: string;
  readonly model: string;
  /** Keep the benchmark database after the run (for poking at it with psql). */
  readonly keepDatabase: boolean;
  /** Configuration overrides for the services under test (`--env KEY=VALUE`, repeatable). */
  readonly env: Readonly<Record<string, string>>;
}

export const SERVICE_FLAGS = {
  'admin-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
  'redis-url': { type: 'string', default: 'redis://127.0.0.1:6379' },
  'models-dir': { type: 'string', default: './models' },
  model: { type: 'string', default: 'glove-sif-100d' },
  'keep-db': { type: 'boolean', default: false },
  env: { type: 'string', multiple: true },
  help: { type: 'boolean', default: false },
} as const satisfies ParseArgsConfig['options'];

type Flags = Record<string, string | boolean | string[] | undefined>;

export function parseFlags<O extends NonNullable<ParseArgsConfig['options']>>(
  argv: readonly string[],
  options: O,
): Flags {
  const { values } = parseArgs({ args: [...argv], options, strict: true, allowPositionals: false });
  return values as Flags;
}

export function serviceOptions(flags: Flags): ServiceOptions {
  return {
    adminUrl: stringFlag(flags, 'admin-url'),
    redisUrl: stringFlag(flags, 'redis-url'),
    modelsDir: resolve(stringFlag(flags, 'models-dir')),
    model: stringFlag(flags, 'model'),
    keepDatabase: flags['keep-db'] === true,
    env: envOverrides(flags.env),
  };
}

function envOverrides(value: Flags[string]): Record<string, string> {
  const entries = Array.isArray(value) ? value : [];
  return Object.fromEntries(
    entries.map((entry) => {
      const at = entry.indexOf('=');
      if (at <= 0) throw new Error(`--env takes KEY=VALUE, got "${entry}"`);
      return [entry.slice(0, at), entry.slice(at + 1)];
    }),
  );
}

export function stringFlag(flags: Flags, name: string): string {
  const value = flags[name];
  if (typeof value !== 'string') throw new Error(`--${name} is required`);
  return value;
}

export function intFlag(flags: Flags, name: string, fallback: number): number {
  const value = flags[name];
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (typeof value !== 'string' || !Number.isInteger(parsed) || parsed < 0) {
    throw new Error(`--${name} must be a non-negative integer, got ${String(value)}`);
  }
  return parsed;
}

export const SERVICE_HELP = `  --admin-url URL     Postgres URL with CREATE DATABASE rights (default postgres://postgres@127.0.0.1:5432/postgres)
  --redis-url URL     Redis for the BullMQ queue; a unique QUEUE_PREFIX is used and removed afterwards
  --models-dir DIR    where the embedding model lives (default ./models)
  --model ID          embedding model (default glove-sif-100d)
  --keep-db           do not drop the benchmark database at the end
  --env KEY=VALUE     configuration override for the API and worker under test (repeatable),
                      e.g. --env WORKER_CONCURRENCY=16 --env EMBEDDING_BATCH_WAIT_MS=0`;
