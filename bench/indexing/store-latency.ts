import type { Client } from 'pg';
import { type Principal } from '@app/tenancy';
import { type CreateMemoryUseCase } from '@app/memories';
import type { GeneratedMemory } from '../corpus/memory-generator';
import { summariseLatencies, type LatencySummary } from '../metrics';
import { toNewMemory } from './index-throughput';
import { embeddedIds, sleep } from './wait-for-embeddings';

export interface StoreLatencyResult {
  readonly stores: number;
  readonly targetPerSecond: number;
  readonly achievedPerSecond: number;
  /** Store call → acknowledged (the API's synchronous part). */
  readonly ack: LatencySummary;
  /** Store call → embedding row committed and visible to a new query. */
  readonly searchable: LatencySummary;
  /** Stores not searchable by the deadline (excluded from the percentiles; should be 0). */
  readonly missing: number;
  readonly pollMs: number;
}

const POLL_MS = 5;

/**
 * Open-loop load: a store is issued every 1000/rate ms whether or not earlier ones finished (a
 * closed loop would slow down with the system and hide queueing). A separate connection polls
 * memory_embeddings every few ms; the poll interval bounds the timing error and is reported.
 */
export async function measureStoreToSearchable(options: {
  create: CreateMemoryUseCase;
  principals: readonly Principal[];
  memories: readonly GeneratedMemory[];
  ratePerSecond: number;
  pg: Client;
  modelId: string;
  deadlineMs: number;
}): Promise<StoreLatencyResult> {
  const issuedAt = new Map<number, number>();
  const ack: number[] = [];
  const searchable: number[] = [];
  let storing = true;
  const poller = (async () => {
    while (storing || issuedAt.size > 0) {
      const ids = [...issuedAt.keys()];
      for (const id of await embeddedIds(options.pg, options.modelId, ids)) {
        const t0 = issuedAt.get(id);
        if (t0 !== undefined) searchable.push(performance.now() - t0);
        issuedAt.delete(id);
      }
      await sleep(POLL_MS);
    }
  })();

  const interval = 1000 / options.ratePerSecond;
  const started = performance.now();
  const inFlight: Promise<void>[] = [];
  let lastIssued = started;
  for (const [i, memory] of options.memories.entries()) {
    const due = started + i * interval;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const t0 = performance.now();
    lastIssued = t0;
    inFlight.push(
      options.create.execute(options.principals[memory.owner], toNewMemory(memory)).then((stored) => {
        ack.push(performance.now() - t0);
        issuedAt.set(stored.id, t0);
      }),
    );
  }
  await Promise.all(inFlight);
  const deadline = performance.now() + options.deadlineMs;
  while (issuedAt.size > 0 && performance.now() < deadline) await sleep(20);
  const missing = issuedAt.size;
  issuedAt.clear();
  storing = false;
  await poller;
  return {
    stores: options.memories.length,
    targetPerSecond: options.ratePerSecond,
    achievedPerSecond: ((options.memories.length - 1) / Math.max(1, lastIssued - started)) * 1000,
    ack: summariseLatencies(ack),
    searchable: summariseLatencies(searchable),
    missing,
    pollMs: POLL_MS,
  };
}
