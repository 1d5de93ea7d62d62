import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { migrateDatabase } from '../test-database';
import { freePort } from './free-port';
import { processAlive } from './process-alive';

const run = promisify(execFile);

const VERSION = '15';
const CONFIG_ROOT = `/etc/postgresql/${VERSION}`;
/** Clusters this tool makes are named `chaos_<label>_<pid>`: the pid says whether their suite still runs. */
const NAME = /^chaos_[a-z0-9_]+_(\d+)$/;

async function pg(command: string, args: readonly string[]): Promise<void> {
  try {
    await run(command, args, { timeout: 120_000 });
  } catch (error) {
    const { stderr, stdout } = error as { stderr?: string; stdout?: string };
    throw new Error(`${command} ${args.join(' ')} failed: ${stderr || stdout || String(error)}`);
  }
}

/** Drops clusters an earlier run of this tool left behind (its process gone: killed, crashed). */
async function dropAbandonedClusters(): Promise<void> {
  let names: string[];
  try {
    names = readdirSync(CONFIG_ROOT);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = NAME.exec(name)?.[1];
    if (pid !== undefined && (Number(pid) === process.pid || !processAlive(Number(pid)))) {
      await pg('pg_dropcluster', ['--stop', VERSION, name]).catch(() => undefined);
    }
  }
}

/**
 * A PostgreSQL 15 cluster of one suite's own (Debian's `pg_createcluster`, trust auth, listening on
 * localhost at a free port), so a test can restart or stop Postgres without disturbing anyone
 * using the shared server. pgvector is installed system-wide, so the migrations run as they do
 * anywhere. Needs root (the cluster's files belong to the `postgres` user). `drop()` removes it;
 * a cluster left behind by a run that was killed is removed by the next `create()`.
 */
export class PrivatePostgres {
  private constructor(
    readonly name: string,
    readonly port: number,
  ) {}

  static async create(label: string): Promise<PrivatePostgres> {
    await dropAbandonedClusters();
    const name = `chaos_${label.toLowerCase().replace(/[^a-z0-9]+/g, '_')}_${process.pid}`;
    const cluster = new PrivatePostgres(name, await freePort());
    await pg('pg_createcluster', [
      VERSION,
      name,
      '-p',
      String(cluster.port),
      '--start-conf',
      'manual',
      '-o',
      'max_connections=200',
      '--',
      '--auth=trust',
    ]);
    try {
      await cluster.start();
    } catch (error) {
      await cluster.drop().catch(() => undefined);
      throw error;
    }
    return cluster;
  }

  /** The `postgres` superuser's URL for `database` (default `postgres`). */
  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  /** Creates `database` and runs every migration in it; returns its superuser URL. */
  async createMigratedDatabase(database: string): Promise<string> {
    const admin = new Client({ connectionString: this.url() });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${database}`);
    } finally {
      await admin.end();
    }
    await migrateDatabase(this.url(database), 'private-postgres-setup');
    return this.url(database);
  }

  start(): Promise<void> {
    return this.ctl('start');
  }

  /** `pg_ctlcluster … restart`: a fast shutdown (open transactions are aborted), then a start. */
  restart(): Promise<void> {
    return this.ctl('restart');
  }

  stop(): Promise<void> {
    return this.ctl('stop');
  }

  /** Stops the cluster and deletes its data and configuration. */
  drop(): Promise<void> {
    return pg('pg_dropcluster', ['--stop', VERSION, this.name]);
  }

  private ctl(action: 'start' | 'restart' | 'stop'): Promise<void> {
    return pg('pg_ctlcluster', ['--skip-systemctl-redirect', VERSION, this.name, action]);
  }
}
