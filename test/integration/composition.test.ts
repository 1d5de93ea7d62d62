import { ModulesContainer } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test, type TestingModule } from '@nestjs/testing';
import type { INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '@app/config';
import { JobHandlerRegistry } from '@app/jobs';
import { AppModule } from '../../apps/api/src/app.module';
import { WorkerModule } from '../../apps/worker/src/worker.module';

/** Our own global modules; the others are framework internals (Nest core, nestjs-pino, terminus). */
const ALLOWED_GLOBAL = new Set(['ConfigModule', 'PersistenceModule', 'ObservabilityModule']);
const FRAMEWORK_MODULES = new Set([
  'InternalCoreModule',
  'LoggerModule',
  'TerminusModule',
  'DiscoveryModule',
]);

/** Tokens provided by more than one module (the framework's own per-module providers aside). */
function providedTwice(moduleRef: INestApplicationContext): string[] {
  const owners = new Map<unknown, string[]>();
  for (const module of moduleRef.get(ModulesContainer).values()) {
    const name = module.metatype.name;
    if (FRAMEWORK_MODULES.has(name)) continue;
    for (const [token, wrapper] of module.providers) {
      // Every module has itself, ModuleRef, ApplicationConfig and similar internals.
      if (token === module.metatype || wrapper.isAlias || !wrapper.metatype) continue;
      if (typeof token === 'function' && /^(ModuleRef|ApplicationConfig)$/.test(token.name)) continue;
      owners.set(token, [...(owners.get(token) ?? []), name]);
    }
  }
  return [...owners]
    .filter(([, modules]) => modules.length > 1)
    .map(
      ([token, modules]) =>
        `${typeof token === 'function' ? token.name : String(token)}: ${modules.join(', ')}`,
    );
}

function ourGlobalModules(moduleRef: INestApplicationContext): string[] {
  return [...moduleRef.get(ModulesContainer).values()]
    .filter((module) => module.isGlobal && !FRAMEWORK_MODULES.has(module.metatype.name))
    .map((module) => module.metatype.name)
    .sort();
}

describe.each([
  ['api (Redis: producing only)', 'api'],
  ['worker', 'worker'],
] as const)('the %s composition', (_label, role) => {
  let moduleRef: TestingModule;
  let app: INestApplicationContext;

  beforeAll(async () => {
    const config = loadConfig({
      DATABASE_URL: inject('databaseUrl'),
      REDIS_URL: inject('redisUrl'),
      QUEUE_PREFIX: `test-composition-${role}-${process.pid}`,
      RUN_MIGRATIONS: 'false',
      LOG_LEVEL: 'warn',
    });
    const root = role === 'api' ? AppModule.forRoot(config) : WorkerModule.forRoot(config);
    moduleRef = await Test.createTestingModule({ imports: [root] }).compile();
    // The API registers routes (MCP) on its HTTP server while it initialises.
    app = role === 'api' ? moduleRef.createNestApplication(new FastifyAdapter()) : moduleRef;
    await app.init();
  });

  afterAll(async () => {
    await app?.close().catch(() => moduleRef.get(DataSource).destroy());
  });

  it('provides each provider in exactly one module', () => {
    expect(providedTwice(app)).toEqual([]);
  });

  it('makes only config, persistence and observability global', () => {
    expect(ourGlobalModules(app)).toEqual([...ALLOWED_GLOBAL].sort());
  });

  it('has exactly one @HandlesJob handler for every job', () => {
    expect(app.get(JobHandlerRegistry).problems()).toEqual([]);
  });
});
