import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ChaosTally, ProcessHarness } from '@app/testing';
import { teamFixture } from '../support/e2e-env';
import { client } from '../support/http-client';
import { bearer, callTool, connectMcp } from '../support/mcp-client';

const SCALE = Math.max(1, Number(process.env.CHAOS_SCALE ?? 1) || 1);
/** Rounds of the rolling restart; each round restarts every API once, one at a time. */
const ROUNDS = 2 * SCALE;
/** Calls each client starts at most per second; four clients (REST and MCP for two users). */
const CALLS_PER_SECOND_PER_CLIENT = 10;
/** Load before the first fault and after the last one, and the SIGKILL case's load after the kill. */
const STEADY_LOAD_MS = 500;
const AFTER_KILL_LOAD_MS = 1_000 * SCALE;

type User = 'alice' | 'bob';
interface Acknowledged {
  readonly owner: User;
  readonly content: string;
}
interface Failure {
  readonly what: string;
  readonly detail: string;
}

describe('rolling restart under load (two API processes and a worker behind a readiness-aware proxy)', () => {
  const tally = new ChaosTally('Rolling restart');
  const team = teamFixture();
  let harness: ProcessHarness;
  const mcp = new Map<User, Client>();
  const acknowledged = new Map<number, Acknowledged>();

  beforeAll(async () => {
    harness = await ProcessHarness.start({ apis: 2, workers: 1, env: team.env });
    for (const user of ['alice', 'bob'] as const) {
      mcp.set(user, await connectMcp(`${harness.proxy.url}/mcp`, bearer(team.keys[user])));
    }
  });

  afterAll(async () => {
    await Promise.all([...mcp.values()].map((c) => c.close()));
    await harness?.close();
    tally.report();
  });

  /** One client's calls in turn — store, get, list, recall — over REST or MCP, paced to the rate. */
  const startClient = (user: User, transport: 'rest' | 'mcp', failures: Failure[]) => {
    const rest = client(harness.proxy.url, team.keys[user]);
    const own = () => [...acknowledged].filter(([, ack]) => ack.owner === user).map(([id]) => id);
    const pick = () => {
      const ids = own();
      return ids[Math.floor(Math.random() * ids.length)];
    };
    const ok = (what: string, res: { status: number; body: unknown; headers: Headers }) => {
      // The proxy's own 502 (a backend cut the request) is a failed request, not the service's 5xx.
      if (res.headers.has('x-proxy-error')) tally.add('calls');
      else tally.status(res.status, `${transport} ${what}`);
      if (res.status !== 200) {
        failures.push({ what: `${transport} ${what}`, detail: `${res.status} ${JSON.stringify(res.body)}` });
      }
      return res.status === 200;
    };
    const restCall = async (step: number) => {
      switch (step % 4) {
        case 0: {
          const content = `${user} rolling-restart note ${randomUUID()}`;
          const res = await rest.post<{ id: number }>('/api/memories', { content });
          if (ok('store', res)) acknowledged.set(res.body.id, { owner: user, content });
          return;
        }
        case 1: {
          const id = pick();
          if (id === undefined) return;
          const res = await rest.get<{ content: string }>(`/api/memories/${id}`);
          if (ok('get', res)) {
            tally.check(
              'a get answers the acknowledged content',
              res.body.content === acknowledged.get(id)?.content,
            );
          }
          return;
        }
        case 2: {
          const res = await rest.get('/api/memories?limit=20');
          ok('list', res);
          return;
        }
        default: {
          const res = await rest.post('/api/memories/recall', { context: `${user} rolling-restart note` });
          ok('recall', res);
        }
      }
    };
    const mcpCall = async (step: number) => {
      const session = mcp.get(user)!;
      const tool = async (name: string, args: Record<string, unknown>) => {
        const result = await callTool(session, name, args);
        tally.add('calls');
        if (result.isError) failures.push({ what: `mcp ${name}`, detail: result.text });
        return result.isError ? undefined : result;
      };
      switch (step % 4) {
        case 0: {
          const content = `${user} rolling-restart tool note ${randomUUID()}`;
          const result = await tool('memory_store', { content, visibility: 'private' });
          const id = (result?.structuredContent as { id?: number } | undefined)?.id;
          if (id !== undefined) acknowledged.set(id, { owner: user, content });
          return;
        }
        case 1: {
          const id = pick();
          if (id !== undefined) await tool('memory_get', { id });
          return;
        }
        case 2:
          await tool('memory_list', { limit: 20 });
          return;
        default:
          await tool('memory_recall', { context: `${user} rolling-restart tool note` });
      }
    };
    let running = true;
    const loop = (async () => {
      const pace = 1_000 / CALLS_PER_SECOND_PER_CLIENT;
      for (let step = 0; running; step++) {
        const started = Date.now();
        try {
          await (transport === 'rest' ? restCall(step) : mcpCall(step));
        } catch (error) {
          // No answer at all: a reset or refused connection reached the client.
          tally.add('calls');
          failures.push({
            what: `${transport} call ${step % 4}`,
            detail: String((error as Error).cause ?? error),
          });
        }
        await delay(Math.max(0, pace - (Date.now() - started)));
      }
    })();
    return async () => {
      running = false;
      await loop;
    };
  };

  const startLoad = (failures: Failure[]) => {
    const stops = (['alice', 'bob'] as const).flatMap((user) => [
      startClient(user, 'rest', failures),
      startClient(user, 'mcp', failures),
    ]);
    return async () => {
      await Promise.all(stops.map((stop) => stop()));
    };
  };

  /** Reads every acknowledged write back as its owner, through the proxy; a missing one is lost. */
  const verifyAcknowledged = async () => {
    for (const [id, ack] of acknowledged) {
      const res = await client(harness.proxy.url, team.keys[ack.owner]).get<{ content: string }>(
        `/api/memories/${id}`,
      );
      const kept = res.status === 200 && res.body.content === ack.content;
      if (!kept) tally.add('lost');
      tally.check(
        `acknowledged memory ${id} is readable afterwards`,
        kept,
        () => `${res.status} ${JSON.stringify(res.body)}`,
      );
    }
  };

  it(`SIGTERM, one API at a time, ${ROUNDS} rounds: no request fails and every acknowledged write is kept`, async () => {
    const failures: Failure[] = [];
    const stopLoad = startLoad(failures);
    await delay(STEADY_LOAD_MS);
    for (let round = 0; round < ROUNDS; round++) {
      for (const api of harness.apis) {
        const callsBefore = tally.get('calls');
        const exit = await harness.restart(api, 'SIGTERM');
        tally.add('faults injected');
        tally.add('restarts');
        tally.check(
          `api ${api.index} exits 0 on SIGTERM`,
          exit.code === 0,
          () => `${JSON.stringify(exit)}\n${api.output()}`,
        );
        // The restart happened under load: traffic flowed while this API was away.
        tally.check('calls kept flowing while an API restarted', tally.get('calls') > callsBefore);
      }
    }
    await delay(STEADY_LOAD_MS);
    await stopLoad();

    tally.add('acknowledged writes', acknowledged.size);
    tally.add('failed requests', failures.length);
    failures.forEach((f) => tally.check(`${f.what} succeeded`, false, () => f.detail));
    await verifyAcknowledged();
    tally.check('no process exited on its own', harness.crashes.length === 0, () =>
      harness.crashes.join('\n'),
    );

    expect(failures).toEqual([]);
    expect(harness.apis.map((api) => api.starts)).toEqual([1 + ROUNDS, 1 + ROUNDS]);
    // Both restarted APIs are back in rotation and answering.
    const served = new Set(
      harness.proxy.log
        .slice(-40)
        .filter((r) => r.status === 200)
        .map((r) => r.backend),
    );
    expect([...served].sort()).toEqual([0, 1]);
    tally.assertClean();
  });

  it('SIGKILL of one API under load: only requests in flight on it are cut, acknowledged writes are kept, the other serves on', async () => {
    const failures: Failure[] = [];
    const before = acknowledged.size;
    const [victim, survivor] = harness.apis;
    const stopLoad = startLoad(failures);
    await delay(STEADY_LOAD_MS);
    const erredBefore = new Set(harness.proxy.log.filter((r) => r.error !== undefined));
    const exit = await harness.signal(victim, 'SIGKILL');
    tally.add('faults injected');
    tally.add('kills');
    expect(exit.signal).toBe('SIGKILL');

    const survivorFrom = harness.proxy.log.length;
    await delay(AFTER_KILL_LOAD_MS);
    // Answered by a backend (not cut) after the kill: the survivor's work.
    const whileDown = harness.proxy.log.slice(survivorFrom).filter((r) => r.status !== 0 && !r.error);
    await harness.start(victim);
    await delay(STEADY_LOAD_MS);
    await stopLoad();

    // What the proxy cut: requests sent to the killed API before it died, reset or cut mid-answer.
    const cut = harness.proxy.log.filter((r) => r.error !== undefined && !erredBefore.has(r));
    tally.add('in-flight requests cut by the kill', cut.length);
    tally.check(
      'every cut request was on the killed API',
      cut.every((r) => r.backend === victim.index),
      () => JSON.stringify(cut),
    );
    // Every failure the clients saw is one of those cuts; nothing else failed.
    tally.add('failed requests', failures.length - Math.min(failures.length, cut.length));
    tally.check('no failure beyond the requests cut by the kill', failures.length <= cut.length, () =>
      JSON.stringify({ cut, failures }),
    );
    tally.check(
      'the survivor served every request while the other was down',
      whileDown.length > 0 && whileDown.every((r) => r.backend === survivor.index && r.status === 200),
      () => JSON.stringify(whileDown),
    );

    tally.add('acknowledged writes', acknowledged.size - before);
    await verifyAcknowledged();
    tally.check('no process exited on its own', harness.crashes.length === 0, () =>
      harness.crashes.join('\n'),
    );

    expect(failures.length).toBeLessThanOrEqual(cut.length);
    expect(acknowledged.size).toBeGreaterThan(before);
    tally.assertClean();
  });
});
