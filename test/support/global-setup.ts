import type { TestProject } from 'vitest/node';
import { Client } from 'pg';
import { migrateDatabase } from '@app/testing';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    adminDatabaseUrl: string;
    redisUrl: string;
  }
}

const adminUrl = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export function databaseUrlFor(name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Creates a fresh database for one vitest project run and migrates it once. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const name = `memsvc_test_${project.name}_${process.pid}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();

  const databaseUrl = databaseUrlFor(name);
  await migrateDatabase(databaseUrl);

  project.provide('databaseUrl', databaseUrl);
  project.provide('adminDatabaseUrl', adminUrl);
  project.provide('redisUrl', redisUrl);

  return async () => {
    const c = new Client({ connectionString: adminUrl });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.end();
  };
}
