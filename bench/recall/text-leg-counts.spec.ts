import { describe, expect, it } from 'vitest';
import { indexShare, parseTextLegCounts } from './text-leg-counts';

const EXPOSITION = `# HELP memsvc_recall_text_leg_total Recalls' text legs by where they ran.
# TYPE memsvc_recall_text_leg_total counter
memsvc_recall_text_leg_total{source="sql",service="api"} 3
memsvc_recall_text_leg_total{source="index",service="api"} 120
memsvc_recall_text_leg_totals{source="index"} 999
memsvc_http_requests_total{route="/api/memories/recall"} 123
`;

describe('parseTextLegCounts', () => {
  it('reads the index and sql series of the counter, whatever other labels they carry', () => {
    expect(parseTextLegCounts(EXPOSITION)).toEqual({ index: 120, sql: 3 });
  });

  it('counts nothing before the first recall created the series', () => {
    expect(parseTextLegCounts('# HELP other\nother_total 4\n')).toEqual({ index: 0, sql: 0 });
  });
});

describe('indexShare', () => {
  it('is the index share of the legs run between two readings', () => {
    expect(indexShare({ index: 10, sql: 3 }, { index: 40, sql: 3 })).toBe(1);
    expect(indexShare({ index: 0, sql: 0 }, { index: 3, sql: 1 })).toBe(0.75);
  });

  it('is unknown when a reading is missing or nothing ran', () => {
    expect(indexShare(null, { index: 1, sql: 0 })).toBeNull();
    expect(indexShare({ index: 5, sql: 5 }, { index: 5, sql: 5 })).toBeNull();
  });
});
