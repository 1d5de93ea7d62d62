import { readFile } from 'node:fs/promises';
import type { Client } from 'pg';

/** Linux's USER_HZ: /proc reports CPU time in these ticks on every mainstream kernel build. */
const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) a process has used so far; 0 once it is gone. */
export async function cpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  // The command name may hold spaces and parentheses: fields are counted after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the file, 12 and 13 after the name.
  return (Number(fields[11] ?? 0) + Number(fields[12] ?? 0)) / TICKS_PER_SECOND;
}

/** Resident memory in MB (VmRSS); 0 once the process is gone. */
export async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kb = /^VmRSS:\s+(\d+)/m.exec(status)?.[1];
  return kb ? Number(kb) / 1024 : 0;
}

/**
 * The Postgres backends serving one application (by `application_name`) in the benchmark database.
 * The server runs on this machine, so their CPU time is readable from /proc like our own processes'.
 */
export async function backendPids(pg: Client, applicationName: string): Promise<number[]> {
  const { rows } = await pg.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1`,
    [applicationName],
  );
  return rows.map((r) => r.pid);
}

/** CPU seconds per process group at one instant; compare two with `cpuSpent`. */
export type CpuSnapshot = ReadonlyMap<string, ReadonlyMap<number, number>>;

export interface CpuGroups {
  /** Group name → the pids it holds now (asked again at every snapshot: pools open backends lazily). */
  readonly [group: string]: () => Promise<readonly number[]>;
}

export async function snapshotCpu(groups: CpuGroups): Promise<CpuSnapshot> {
  const snapshot = new Map<string, Map<number, number>>();
  for (const [group, pids] of Object.entries(groups)) {
    const times = new Map<number, number>();
    for (const pid of await pids()) times.set(pid, await cpuSeconds(pid));
    snapshot.set(group, times);
  }
  return snapshot;
}

/**
 * CPU milliseconds each group used between two snapshots. A backend that appeared in between counts
 * from zero (it started inside the window); one that exited in between is lost, which pooled
 * connections under load do not do.
 */
export function cpuSpent(before: CpuSnapshot, after: CpuSnapshot): Record<string, number> {
  const spent: Record<string, number> = {};
  for (const [group, times] of after) {
    const earlier = before.get(group);
    let ms = 0;
    for (const [pid, seconds] of times) ms += (seconds - (earlier?.get(pid) ?? 0)) * 1000;
    spent[group] = ms;
  }
  return spent;
}

/** Samples the processes' RSS while load runs and keeps the peak of each. */
export class RssPeaks {
  private readonly peaks = new Map<number, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly pids: readonly number[]) {}

  start(intervalMs = 250): void {
    this.timer = setInterval(() => void this.sample(), intervalMs);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.sample();
  }

  peak(pid: number): number {
    return this.peaks.get(pid) ?? 0;
  }

  private async sample(): Promise<void> {
    for (const pid of this.pids) this.peaks.set(pid, Math.max(this.peak(pid), await rssMb(pid)));
  }
}

/** A process's resident memory by kind, in MB, from /proc/<pid>/status (absent fields are 0). */
export interface ResidentMemory {
  readonly rss: number;
  /** Private anonymous pages (heap, stacks, a backend's work_mem): what the process alone holds. */
  readonly anon: number;
  /** Shared memory it has touched (Postgres: the pages of shared_buffers it read), counted once per process. */
  readonly shmem: number;
}

export function parseProcStatus(status: string): ResidentMemory {
  const mb = (field: string) => {
    const kb = new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1];
    return kb ? Number(kb) / 1024 : 0;
  };
  return { rss: mb('VmRSS'), anon: mb('RssAnon'), shmem: mb('RssShmem') };
}

/** The resident memory of `pid` by kind; null when /proc does not show it (gone, or another host). */
export async function residentMemory(pid: number): Promise<ResidentMemory | null> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => null);
  return status ? parseProcStatus(status) : null;
}

/** A Node process's V8 heap from its Prometheus exposition (prom-client's default metrics), in MB. */
export interface HeapReading {
  readonly used: number;
  readonly total: number;
}

export function parseHeapMetrics(exposition: string): HeapReading | null {
  const value = (name: string) => {
    const line = exposition.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
    const n = line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : Number.NaN;
    return Number.isFinite(n) ? n / (1024 * 1024) : null;
  };
  const used = value('nodejs_heap_size_used_bytes');
  const total = value('nodejs_heap_size_total_bytes');
  return used === null || total === null ? null : { used, total };
}

/** The heap a service reports at `${baseUrl}/metrics`; null when it does not answer. */
export async function scrapeHeap(baseUrl: string): Promise<HeapReading | null> {
  const response = await fetch(`${baseUrl}/metrics`).catch(() => null);
  if (!response?.ok) return null;
  return parseHeapMetrics(await response.text());
}
