/**
 * Tells this process's outbox relay that a transaction holding outbox rows has committed, so it
 * relays them at once rather than at its next poll.
 *
 * In-process on purpose. The outbox used to `NOTIFY` from an insert trigger, and Postgres takes one
 * database-wide lock at the commit of every transaction that notified, held through its WAL flush:
 * every write of every user queued behind every other at commit. Each API and worker process runs
 * a relay, so the process that wrote a row relays it; a row whose writer has no relay (the CLI) or
 * that a nudge missed goes out at the next poll of any relay.
 */
export class OutboxSignal {
  private readonly listeners = new Set<() => void>();

  /** Calls `listener` after each commit with outbox rows; answers the unsubscribe. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  committed(): void {
    for (const listener of this.listeners) listener();
  }
}

/** The process's one signal: writers and the relay meet here whatever module built them. */
export const OUTBOX_COMMITS = new OutboxSignal();
