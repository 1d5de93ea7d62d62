import { Gauge, type Registry } from 'prom-client';

/** A queue-like backlog: how many items wait, and how long the oldest has waited. */
export interface Backlog {
  readonly pending: number;
  /** 0 when nothing waits. */
  readonly oldestAgeSeconds: number;
}

export interface BacklogGaugeNames {
  readonly pending: { readonly name: string; readonly help: string };
  readonly oldestAge: { readonly name: string; readonly help: string };
}

/**
 * Two gauges read at scrape time from one query: both are collected in the same scrape, so the
 * read is shared for a second. A failed read leaves the gauges unset rather than failing the scrape.
 */
export function registerBacklogGauges(
  registry: Registry,
  names: BacklogGaugeNames,
  read: () => Promise<Backlog>,
): void {
  let cached: { at: number; value: Promise<Backlog | undefined> } | undefined;
  const current = (): Promise<Backlog | undefined> => {
    if (!cached || Date.now() - cached.at > 1_000) {
      cached = { at: Date.now(), value: read().catch(() => undefined) };
    }
    return cached.value;
  };
  const gauge = (spec: { name: string; help: string }, pick: (b: Backlog) => number) =>
    new Gauge({
      name: spec.name,
      help: spec.help,
      registers: [registry],
      async collect() {
        const value = await current();
        if (value) this.set(pick(value));
      },
    });
  gauge(names.pending, (b) => b.pending);
  gauge(names.oldestAge, (b) => b.oldestAgeSeconds);
}
