/**
 * Which text of a captured event session capture reads. Payloads are free-form JSON (each agent's
 * hooks send their own shape), so the extractor looks at a few well-known fields only and ignores
 * the rest; docs/api.md lists them.
 */

/** Read in this order; the first non-empty one is the event's text. */
export const EVENT_TEXT_FIELDS = ['text', 'prompt', 'content', 'note', 'correction', 'message'] as const;

type Payload = Readonly<Record<string, unknown>>;

const asPayload = (value: unknown): Payload | null =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Payload) : null;

/**
 * The event's text: the first of EVENT_TEXT_FIELDS holding a non-empty string, or a list of
 * content blocks (`[{type: "text", text}]`, as chat transcripts store messages) whose text parts
 * are joined. Null when there is none.
 */
export function eventText(payload: unknown): string | null {
  const object = asPayload(payload);
  if (!object) return null;
  for (const field of EVENT_TEXT_FIELDS) {
    const value = object[field];
    if (typeof value === 'string' && value.trim() !== '') return value;
    if (Array.isArray(value)) {
      const parts = value
        .map(asPayload)
        .filter((block): block is Payload => block !== null && block.type === 'text')
        .map((block) => block.text)
        .filter((text): text is string => typeof text === 'string' && text.trim() !== '');
      if (parts.length > 0) return parts.join('\n');
    }
  }
  return null;
}

/**
 * Whether a prompt was written by the user. A payload may carry `role` (transcripts do); anything
 * but `user`/`human` (the assistant saying "I'll remember that…") is not the user's to capture.
 */
export function isUserAuthored(payload: unknown): boolean {
  const role = asPayload(payload)?.role;
  return role === undefined || role === null || role === 'user' || role === 'human';
}

/** What a `note` or `correction` event may say about the memory it becomes. */
export interface EventMemoryOptions {
  readonly category: unknown;
  readonly tags: unknown;
  readonly importance: unknown;
  /** `visibility: "private"` or `private: true`. */
  readonly private: boolean;
}

export function eventMemoryOptions(payload: unknown): EventMemoryOptions {
  const object = asPayload(payload) ?? {};
  return {
    category: object.category,
    tags: object.tags,
    importance: object.importance,
    private: object.visibility === 'private' || object.private === true,
  };
}
