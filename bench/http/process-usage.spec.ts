import { describe, expect, it } from 'vitest';
import { parseHeapMetrics, parseProcStatus } from './process-usage';

describe('parseProcStatus', () => {
  it('reads resident memory by kind in MB, absent fields as 0', () => {
    const status = [
      'Name:\tpostgres',
      'VmRSS:\t   25600 kB',
      'RssAnon:\t    2048 kB',
      'RssFile:\t 5820 kB',
    ].join('\n');
    expect(parseProcStatus(status)).toEqual({ rss: 25, anon: 2, shmem: 0 });
  });
});

describe('parseHeapMetrics', () => {
  it("reads prom-client's heap gauges in MB, and not a longer metric that shares the prefix", () => {
    const exposition = [
      '# HELP nodejs_heap_size_total_bytes Process heap size from Node.js in bytes.',
      'nodejs_heap_size_total_bytes_extra 1',
      'nodejs_heap_size_total_bytes 209715200',
      'nodejs_heap_size_used_bytes 104857600',
    ].join('\n');
    expect(parseHeapMetrics(exposition)).toEqual({ used: 100, total: 200 });
  });

  it('answers null without them', () => {
    expect(parseHeapMetrics('process_cpu_seconds_total 1\n')).toBeNull();
  });
});
