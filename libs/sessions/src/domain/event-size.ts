import { SESSION_LIMITS, type NewSessionEvent } from './session';
import { SessionError } from './session.errors';

/** Refuses a batch over the caps (events per batch, bytes per event, bytes per batch). */
export function assertEventBatchSize(events: readonly NewSessionEvent[]): void {
  if (events.length > SESSION_LIMITS.maxBatchEvents) {
    throw SessionError.batchTooLarge(
      `${events.length} events in one batch; at most ${SESSION_LIMITS.maxBatchEvents} are accepted (send several batches)`,
    );
  }
  let total = 0;
  events.forEach((event, index) => {
    const bytes = Buffer.byteLength(JSON.stringify(event.payload ?? null), 'utf8');
    if (bytes > SESSION_LIMITS.maxEventBytes) throw SessionError.eventTooLarge(index, bytes);
    total += bytes;
  });
  if (total > SESSION_LIMITS.maxBatchBytes) {
    throw SessionError.batchTooLarge(
      `the batch's payloads are ${total} bytes as JSON; at most ${SESSION_LIMITS.maxBatchBytes} are accepted per batch (send smaller batches)`,
    );
  }
}
