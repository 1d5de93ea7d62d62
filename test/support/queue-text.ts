import { Redis } from 'ioredis';
import { inject } from 'vitest';

/** Every value under the queue prefix in Redis (job payloads, events, results). */
export async function queueText(prefix: string): Promise<string> {
  const redis = new Redis(inject('redisUrl'));
  try {
    const keys = await redis.keys(`${prefix}:*`);
    const parts: string[] = [];
    for (const key of keys) {
      const type = await redis.type(key);
      if (type === 'hash') parts.push(JSON.stringify(await redis.hgetall(key)));
      else if (type === 'string') parts.push((await redis.get(key)) ?? '');
      else if (type === 'list') parts.push(...(await redis.lrange(key, 0, -1)));
      else if (type === 'zset') parts.push(...(await redis.zrange(key, 0, -1)));
      else if (type === 'stream') parts.push(JSON.stringify(await redis.xrange(key, '-', '+')));
      else if (type === 'set') parts.push(...(await redis.smembers(key)));
    }
    return parts.join('\n');
  } finally {
    redis.disconnect();
  }
}
