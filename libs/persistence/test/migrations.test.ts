import { afterAll, describe, expect, inject, it } from 'vitest';
import { Client } from 'pg';
import { createDataSource, runMigrations } from '@app/persistence';
import { MIGRATIONS } from '@app/migrations';

describe('migration runner', () => {
  const name = `memsvc_migrate_${process.pid}`;
  const admin = () => new Client({ connectionString: inject('adminDatabaseUrl') });
  const urlFor = () => {
    const url = new URL(inject('adminDatabaseUrl'));
    url.pathname = `/${name}`;
    return url.toString();
  };

  afterAll(async () => {
    const c = admin();
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.end();
  });

  it('lets one of two concurrent runners apply the migrations while the other waits and finds nothing to do', async () => {
    const c = admin();
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.query(`CREATE DATABASE ${name}`);
    await c.end();

    const sources = [0, 1].map(() =>
      createDataSource({
        url: urlFor(),
        poolSize: 2,
        statementTimeoutMs: 60_000,
        applicationName: 'migrate-test',
      }),
    );
    await Promise.all(sources.map((s) => s.initialize()));
    try {
      const results = await Promise.all(sources.map((s) => runMigrations(s)));
      const appliedCounts = results.map((r) => r.applied.length).sort();
      expect(appliedCounts).toEqual([0, MIGRATIONS.length]);
      const rows = await sources[0].query(`SELECT count(*)::int AS n FROM schema_migrations`);
      expect(rows[0].n).toBe(MIGRATIONS.length);
      // A third run later is a no-op too.
      expect((await runMigrations(sources[1])).applied).toEqual([]);
    } finally {
      await Promise.all(sources.map((s) => s.destroy()));
    }
  });
});
