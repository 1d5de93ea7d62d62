import Fastify, { type FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { FaultProxy } from '@app/testing';
import { createRateLimitRedis } from '../../apps/api/src/rate-limit/rate-limit-redis';
import { waitFor } from '../support/wait-for';

/**
 * The limiter's Redis connection behind a link that stops answering: after one command has waited
 * out the timeout, the following ones fail at once (the limiter then lets requests through without
 * a wait each), and counting resumes by itself when Redis answers again.
 */
describe('rate limiter Redis connection when Redis stops answering', () => {
  let proxy: FaultProxy;
  let app: FastifyInstance;
  let redis: Redis;

  beforeAll(async () => {
    const url = inject('redisUrl');
    const { hostname, port } = new URL(url);
    proxy = await FaultProxy.start({ target: `${hostname}:${port || 6379}` });
    app = Fastify();
    redis = createRateLimitRedis(app, proxy.rewrite(url));
    await waitFor('the limiter connection to be ready', () => (redis.status === 'ready' ? true : undefined));
  });

  afterAll(async () => {
    await app?.close();
    await proxy?.close();
  });

  it('drops a connection that keeps a command waiting, refuses at once while Redis is silent, and recovers', async () => {
    expect(await redis.ping()).toBe('PONG');

    proxy.set({ mode: 'blackhole' });
    await expect(redis.ping()).rejects.toThrow();
    // The silent connection is given up; no reconnect can pass its ready check while Redis is silent.
    await waitFor(
      'the silent connection to be dropped',
      () => (redis.status !== 'ready' ? true : undefined),
      5_000,
    );
    for (let i = 0; i < 5; i++) {
      // Not sent anywhere: refused because the connection is not ready, not after waiting for an answer.
      await expect(redis.ping()).rejects.toThrow(/isn't writeable|Connection is closed/);
      expect(redis.status).not.toBe('ready');
    }

    proxy.heal();
    await waitFor('the limiter connection to be ready again', () =>
      redis.status === 'ready' ? true : undefined,
    );
    expect(await redis.ping()).toBe('PONG');
  });
});
