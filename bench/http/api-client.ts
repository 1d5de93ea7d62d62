import { Pool } from 'undici';

/** The most lanes any workload runs; each API process gets that many keep-alive connections. */
export const MAX_CONNECTIONS = 16;

export interface ApiCall {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly key: string;
  readonly body?: unknown;
  /** Extra request headers (MCP's accept and protocol version). */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * Keep-alive undici pools to one or more API processes; lane `slot` always talks to the same
 * process, so with two processes the lanes split evenly, as behind a round-robin balancer.
 */
export class ApiClient {
  private readonly pools: Pool[];

  constructor(urls: readonly string[]) {
    this.pools = urls.map((url) => new Pool(url, { connections: MAX_CONNECTIONS, pipelining: 1 }));
  }

  /** The parsed JSON answer; anything but `expected` (2xx by default) throws with the answer's detail. */
  async json<T>(slot: number, call: ApiCall, expected?: number): Promise<T> {
    const pool = this.pools[slot % this.pools.length];
    const response = await pool.request({
      method: call.method,
      path: call.path,
      headers: {
        authorization: `Bearer ${call.key}`,
        ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...call.headers,
      },
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
    });
    const text = await response.body.text();
    const ok = expected === undefined ? response.statusCode < 300 : response.statusCode === expected;
    if (!ok)
      throw new Error(
        `${call.method} ${call.path.split('?')[0]} answered ${response.statusCode}: ${text.slice(0, 200)}`,
      );
    return (text ? JSON.parse(text) : null) as T;
  }

  async close(): Promise<void> {
    await Promise.all(this.pools.map((pool) => pool.close()));
  }
}
