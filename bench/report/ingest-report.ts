import type { EventIngestResult } from '../sessions/event-ingest';
import { count, fixed, markdownTable, ms, ratio, triple, verdict } from './markdown';

/** Target from the sessions issue: the 202 of an event batch at p99 ≤ 5 ms. */
export const INGEST_P99_TARGET_MS = 5;

export function renderIngestSection(result: EventIngestResult | null): string[] {
  const heading = '## Event ingest: `POST /api/sessions/{id}/events` vs a raw multi-row INSERT';
  if (!result) return [heading, '', 'Not measured in this run.'];
  const p50 = result.http.p50 / result.floor.p50;
  const p99 = result.http.p99 / result.floor.p99;
  return [
    heading,
    '',
    `${count(result.batches)} batches of ${result.eventsPerBatch} events, sent on an open-loop schedule of ` +
      `${count(result.targetEventsPerSecond)} events/s (reached ${fixed(result.achievedEventsPerSecond, 0)}/s). ` +
      'The floor sends the same rows at the same pace as one INSERT each, as the schema owner (no RLS, ' +
      'no redaction, no outbox row).',
    '',
    markdownTable(
      [
        'path',
        'p50 / p95 / p99 ms',
        'p50 ratio',
        'p99 ratio',
        `p99 ≤ ${INGEST_P99_TARGET_MS} ms`,
        'non-202',
        'events stored',
      ],
      [
        [
          'HTTP 202',
          triple(result.http),
          ratio(p50),
          ratio(p99),
          `${ms(result.http.p99)} ${verdict(result.http.p99 <= INGEST_P99_TARGET_MS)}`,
          String(result.failures),
          `${count(result.stored)} of ${count(result.batches * result.eventsPerBatch)}`,
        ],
        ['raw INSERT floor', triple(result.floor), '1.00×', '1.00×', '', '', ''],
      ],
    ),
  ];
}
