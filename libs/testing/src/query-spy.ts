import { Client } from 'pg';

/** One query a `pg` client sent. */
export interface SentQuery {
  readonly client: Client;
  readonly sql: string;
  /** Sent while another query of the same connection still waited for its answer (pipelined). */
  readonly behind: boolean;
}

/**
 * Reports every query any `pg` client sends (the pools of TypeORM use `pg` clients too), with
 * whether it went out behind one still in flight: a round trip is a query sent with nothing in
 * flight. Returns the function that puts `Client.prototype.query` back.
 */
export function spyOnQueries(onSent: (query: SentQuery) => void): () => void {
  const original = Client.prototype.query;
  const inFlight = new Map<Client, number>();
  Client.prototype.query = function (this: Client, ...args: unknown[]) {
    const first = args[0] as string | { text?: string } | undefined;
    const waiting = inFlight.get(this) ?? 0;
    onSent({
      client: this,
      sql: typeof first === 'string' ? first : String(first?.text ?? ''),
      behind: waiting > 0,
    });
    inFlight.set(this, waiting + 1);
    const answer = (original as (...a: unknown[]) => unknown).apply(this, args);
    const settle = () => inFlight.set(this, (inFlight.get(this) ?? 1) - 1);
    if (answer instanceof Promise) answer.then(settle, settle);
    else settle();
    return answer;
  } as typeof Client.prototype.query;
  return () => {
    Client.prototype.query = original;
  };
}
