/** Every event a webhook endpoint can subscribe to. */
export const WEBHOOK_EVENT_TYPES = [
  'memory.created',
  'memory.updated',
  'memory.deleted',
  'memory.restored',
  'memory.shared',
  'memory.unshared',
  'memory.proposal.created',
  'memory.proposal.accepted',
  'memory.proposal.rejected',
  'memory.stale',
  'session.ended',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/**
 * The events a subscription names: an event type, a family (`memory.proposal.*`, `memory.*`) or
 * `*` for every event. Unknown names answer null (the caller reports them).
 */
export function expandEventPatterns(patterns: readonly string[]): {
  events: WebhookEventType[];
  unknown: string[];
} {
  const events = new Set<WebhookEventType>();
  const unknown: string[] = [];
  for (const pattern of patterns) {
    const matched =
      pattern === '*'
        ? [...WEBHOOK_EVENT_TYPES]
        : pattern.endsWith('.*')
          ? WEBHOOK_EVENT_TYPES.filter((type) => type.startsWith(pattern.slice(0, -1)))
          : WEBHOOK_EVENT_TYPES.filter((type) => type === pattern);
    if (matched.length === 0) unknown.push(pattern);
    for (const type of matched) events.add(type);
  }
  return { events: WEBHOOK_EVENT_TYPES.filter((type) => events.has(type)), unknown };
}
