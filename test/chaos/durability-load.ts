import { randomUUID } from 'node:crypto';
import { type ChaosTally, type WriteLedger } from '@app/testing';

/** An API process the load can be sent to; `killed` is set before it is sent SIGKILL. */
export interface LoadTarget {
  readonly url: string;
  killed: boolean;
}

/** A span of time in which Postgres is restarting: 503 is the one acceptable 5xx, and only in it. */
export interface OutageWindow {
  readonly start: number;
  end?: number;
}

export interface LoadOptions {
  readonly targets: () => readonly LoadTarget[];
  readonly users: readonly { name: string; key: string }[];
  readonly ledger: WriteLedger;
  readonly tally: ChaosTally;
  readonly outages: readonly OutageWindow[];
  readonly writers: number;
  /** Pause of each writer between two requests, so the workers keep up with the load. */
  readonly pauseMs: number;
  readonly requestTimeoutMs: number;
}

type Answer =
  | { readonly kind: 'answer'; readonly status: number; readonly body: Record<string, unknown> }
  | { readonly kind: 'none'; readonly error: string };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Writers storing (plain and with an Idempotency-Key) and updating memories through the API
 * processes in turn, recording every answer in the ledger. What each answer may be:
 * - 2xx: acknowledged — must be there afterwards;
 * - no answer at all: only from a process the test killed (its requests in flight are lost with it);
 * - 503 `database_unavailable`: only while Postgres restarts (from `pg_ctlcluster restart` until
 *   every process is ready again plus a grace; the request's span overlaps that window);
 * - anything else (4xx, 500, a 503 outside a restart, a silent process that was not killed) fails.
 * Only 2xx is an acknowledgement: every other outcome leaves the write unknown.
 */
export class DurabilityLoad {
  private stopped = false;
  private running: Promise<void>[] = [];
  private next = 0;
  /** Memories an update is in flight for: updates of one memory go one at a time. */
  private readonly busy = new Set<number>();
  private readonly owned = new Map<string, number[]>();

  constructor(private readonly options: LoadOptions) {}

  start(): void {
    this.running = Array.from({ length: this.options.writers }, (_, n) => this.writer(n));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.running);
  }

  private async writer(n: number): Promise<void> {
    const user = this.options.users[n % this.options.users.length];
    while (!this.stopped) {
      const roll = Math.random();
      const mine = this.owned.get(user.name) ?? [];
      if (roll < 0.4 && mine.length > 0) await this.update(user, mine);
      else if (roll < 0.6) await this.idempotentStore(user);
      else await this.store(user);
      await sleep(this.options.pauseMs);
    }
  }

  private async store(user: { name: string; key: string }): Promise<void> {
    const content = `durability store ${user.name} ${randomUUID()}`;
    const answer = await this.send(user.key, 'POST', '/api/memories', { content, tags: ['durability'] });
    if (this.acknowledged(answer, 'POST /api/memories')) this.remember(user.name, answer, content);
    else this.options.ledger.storeUnknown(user.name, content);
  }

  /** Retries an unanswered store with the same key and body, as a client that needs the write would. */
  private async idempotentStore(user: { name: string; key: string }): Promise<void> {
    const content = `durability idempotent ${user.name} ${randomUUID()}`;
    const key = `durability-${randomUUID()}`;
    const ids = new Set<number>();
    for (let attempt = 0; attempt < 40; attempt++) {
      const answer = await this.send(
        user.key,
        'POST',
        '/api/memories',
        { content, tags: ['durability', 'idempotent'] },
        { 'idempotency-key': key },
      );
      if (attempt > 0) this.options.tally.add('idempotent retries');
      if (this.acknowledged(answer, 'POST /api/memories (Idempotency-Key)')) {
        ids.add(Number(answer.body.id));
        this.remember(user.name, answer, content);
        this.options.tally.add('idempotent stores');
        return;
      }
      if (this.stopped && attempt > 0) break;
      await sleep(250);
    }
    this.options.ledger.storeUnknown(user.name, content);
  }

  private async update(user: { name: string; key: string }, mine: number[]): Promise<void> {
    const id = mine[Math.floor(Math.random() * mine.length)];
    if (this.busy.has(id)) return;
    this.busy.add(id);
    try {
      const content = `durability update ${user.name} ${randomUUID()}`;
      const answer = await this.send(user.key, 'PUT', `/api/memories/${id}`, { content });
      this.options.ledger.updated(id, content, this.acknowledged(answer, 'PUT /api/memories/:id'));
    } finally {
      this.busy.delete(id);
    }
  }

  private remember(user: string, answer: Answer & { kind: 'answer' }, content: string): void {
    const id = Number(answer.body.id);
    this.options.ledger.stored(user, id, content);
    this.options.tally.add('memories acknowledged');
    this.owned.set(user, [...(this.owned.get(user) ?? []), id]);
  }

  /** Counts the answer by what the fault windows allow; true for an acknowledgement (2xx). */
  private acknowledged(
    answer: Answer & { target?: LoadTarget; startedAt?: number },
    what: string,
  ): answer is Answer & { kind: 'answer' } {
    const { tally } = this.options;
    if (answer.kind === 'none') {
      tally.add('calls');
      if (answer.target?.killed) tally.add('no answer from a killed API');
      else tally.check(`${what} answered`, false, () => answer.error);
      return false;
    }
    const started = answer.startedAt ?? 0;
    const now = Date.now();
    const during = this.options.outages.some((w) => started <= (w.end ?? Infinity) && now >= w.start);
    if (answer.status === 503 && answer.body.code === 'database_unavailable' && during) {
      tally.add('calls');
      tally.add('unavailable during Postgres restart (503)');
      return false;
    }
    if (answer.status >= 500) {
      // Not tally.status: its detail would not say what the server answered, nor when.
      tally.add('calls');
      tally.add('5xx');
      const since = this.options.outages.map((w) => `${started - w.start} ms`).join(', ');
      tally.check(`${what} answered without a 5xx`, false, () => {
        return `${answer.status} ${JSON.stringify(answer.body)} (sent ${since || 'before any'} after a restart began)`;
      });
      return false;
    }
    tally.status(answer.status, what);
    const ok = answer.status >= 200 && answer.status < 300;
    if (ok) tally.add('acknowledged writes');
    else tally.check(`${what} answered 2xx`, false, () => `${answer.status} ${JSON.stringify(answer.body)}`);
    return ok;
  }

  private async send(
    key: string,
    method: string,
    path: string,
    body: unknown,
    headers: Record<string, string> = {},
  ): Promise<Answer & { target?: LoadTarget; startedAt: number }> {
    const targets = this.options.targets().filter((t) => !t.killed);
    const target = targets[this.next++ % targets.length];
    const startedAt = Date.now();
    try {
      const res = await fetch(`${target.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.options.requestTimeoutMs),
      });
      const text = await res.text();
      let parsed: Record<string, unknown> = {};
      try {
        parsed = JSON.parse(text) as Record<string, unknown>;
      } catch {
        parsed = { text };
      }
      return { kind: 'answer', status: res.status, body: parsed, target, startedAt };
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      return { kind: 'none', error: `${String(error)}${cause ? ` (${cause})` : ''}`, target, startedAt };
    }
  }
}
