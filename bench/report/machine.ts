import { cpus, release, totalmem } from 'node:os';
import type { Client } from 'pg';

export interface MachineInfo {
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGb: number;
  readonly os: string;
  readonly node: string;
  readonly postgres: string;
  readonly pgvector: string;
  readonly sharedBuffers: string;
}

/** What the numbers were measured on; printed with every result table. */
export async function describeMachine(pg: Client): Promise<MachineInfo> {
  const { rows } = await pg.query<{ pg: string; vector: string | null; sb: string }>(
    `SELECT current_setting('server_version') AS pg,
            (SELECT extversion FROM pg_extension WHERE extname = 'vector') AS vector,
            current_setting('shared_buffers') AS sb`,
  );
  const cpuList = cpus();
  return {
    cpu: cpuList[0]?.model.trim() ?? 'unknown',
    cores: cpuList.length,
    memoryGb: Math.round(totalmem() / 1024 ** 3),
    os: `${process.platform} ${release()}`,
    node: process.version,
    postgres: rows[0]?.pg ?? 'unknown',
    pgvector: rows[0]?.vector ?? 'not installed',
    sharedBuffers: rows[0]?.sb ?? 'unknown',
  };
}

export function machineLine(m: MachineInfo): string {
  return (
    `${m.cores} × ${m.cpu}, ${m.memoryGb} GB RAM, ${m.os}; Node ${m.node}; ` +
    `PostgreSQL ${m.postgres} (shared_buffers ${m.sharedBuffers}), pgvector ${m.pgvector}`
  );
}
