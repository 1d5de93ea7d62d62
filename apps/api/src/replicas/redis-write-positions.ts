import { Redis } from 'ioredis';
import {
  formatLsn,
  parseLsn,
  userKey,
  type Lsn,
  type TenantScope,
  type WritePositions,
} from '@app/persistence';

/** Longest wait for Redis before a read goes to the primary instead. */
const COMMAND_TIMEOUT_MS = 300;

/**
 * Positions are kept as 16 hex digits, so that Redis compares them as strings: the later of two
 * positions is kept even when two writes of one user finish out of order.
 */
const RECORD_LATER = `
local held = redis.call('GET', KEYS[1])
if (not held) or held < ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
else
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 1`;

/**
 * Each user's last write position in Redis, shared by every API process: whichever serves a
 * user's next read knows what it must see. The connection fails fast (no offline queue, a short
 * command timeout): an unreachable Redis makes reads go to the primary, never fail.
 */
export class RedisWritePositions implements WritePositions {
  private readonly client: Redis;

  constructor(
    url: string,
    private readonly prefix: string,
  ) {
    this.client = new Redis(url, {
      connectionName: 'memory-api-write-positions',
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: COMMAND_TIMEOUT_MS,
      connectTimeout: 2_000,
      retryStrategy: (times) => Math.min(100 * times, 2_000),
    });
    // Failures surface as failed commands (reads then go to the primary); without a listener
    // ioredis would print every reconnect attempt.
    this.client.on('error', () => undefined);
  }

  async record(scope: TenantScope, lsn: Lsn, ttlMs: number): Promise<void> {
    await this.client.eval(
      RECORD_LATER,
      1,
      this.key(scope),
      lsn.toString(16).padStart(16, '0'),
      String(ttlMs),
    );
  }

  async latest(scope: TenantScope): Promise<Lsn | null> {
    const held = await this.client.get(this.key(scope));
    if (held === null) return null;
    return parseLsn(formatLsn(BigInt(`0x${held}`)));
  }

  async close(): Promise<void> {
    this.client.disconnect();
  }

  private key(scope: TenantScope): string {
    return `${this.prefix}:write-position:${userKey(scope)}`;
  }
}
