import { Logger } from '@nestjs/common';
import { z } from 'zod';
import { eventText, isUserAuthored } from '../domain/event-text';
import {
  CANDIDATE_KINDS,
  CANDIDATE_LIMITS,
  capText,
  cleanCategory,
  cleanImportance,
  cleanLines,
  cleanTags,
  DEFAULT_CATEGORY,
  DEFAULT_IMPORTANCE,
  hasSubstance,
  isQuestion,
  mergeCandidates,
  type MemoryCandidate,
} from '../domain/memory-candidate';
import type { ExtractionInput, SessionExtractor } from '../ports/session-extractor.port';

export interface LlmExtractorOptions {
  /** API base (`…/v1`) or the full `/chat/completions` URL. */
  readonly url: string;
  readonly model: string;
  readonly apiKey?: string;
  readonly timeoutMs: number;
  /** Characters of event text per request; longer sessions take several requests. */
  readonly maxCharsPerRequest?: number;
}

const DEFAULT_CHARS_PER_REQUEST = 12_000;
/** Each event's text is cut to this before it is sent. */
const MAX_EVENT_CHARS = 2_000;

const SYSTEM_PROMPT = `You read the events of one coding-agent session and pick out what the team should remember.
Return only what the USER stated, never the assistant's suggestions:
- "remember": something the user explicitly asked to remember or noted for later;
- "correction": the user corrected the agent ("no, use X instead"): state the corrected fact, self-contained;
- "decision": a decision the user or team made, with its reason when given.
Skip questions, chit-chat, plans for this session only, and anything that only makes sense inside the conversation.
Write each "content" as one or two self-contained sentences (at most 500 characters). Keep placeholders like
[REDACTED:kind] as they are and never guess secrets. "source_event_ids" lists the ids of the events a candidate
comes from. Set "private" only when the user asked to keep it to themselves. Answer {"candidates": []} when nothing
qualifies.`;

/** The answer the model must give (sent as a strict JSON schema; parsed with zod either way). */
const CANDIDATES_JSON_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['candidates'],
  properties: {
    candidates: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['kind', 'content', 'category', 'importance', 'tags', 'private', 'source_event_ids'],
        properties: {
          kind: { type: 'string', enum: [...CANDIDATE_KINDS] },
          content: { type: 'string' },
          category: { type: 'string' },
          importance: { type: 'number' },
          tags: { type: 'array', items: { type: 'string' } },
          private: { type: 'boolean' },
          source_event_ids: { type: 'array', items: { type: 'integer' } },
        },
      },
    },
  },
} as const;

const completionSchema = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullable() }) })).min(1),
});

const candidatesSchema = z.object({
  candidates: z
    .array(
      z.object({
        kind: z.enum(CANDIDATE_KINDS),
        content: z.string().min(1).max(10_000),
        category: z.string().nullish(),
        importance: z.number().nullish(),
        tags: z.array(z.string()).max(50).nullish(),
        private: z.boolean().nullish(),
        source_event_ids: z.array(z.number().int()).min(1).max(1_000),
      }),
    )
    .max(200),
});

class LlmExtractionError extends Error {}

/**
 * Asks an OpenAI-compatible chat completions endpoint for candidates. Only the text of the user's
 * prompts, notes and corrections is sent (already secret-redacted; tool calls and observations
 * never leave the service). Any failure (timeout, HTTP error, an answer that is not the schema)
 * falls back to the rule-based extractor for the whole run, so capture never stops on the model.
 */
export class LlmSessionExtractor implements SessionExtractor {
  readonly name = 'llm';
  private readonly logger = new Logger('LlmSessionExtractor');
  private readonly endpoint: string;

  constructor(
    private readonly options: LlmExtractorOptions,
    private readonly fallback: SessionExtractor,
  ) {
    this.endpoint = /\/chat\/completions\/?$/.test(options.url)
      ? options.url
      : `${options.url.replace(/\/+$/, '')}/chat/completions`;
  }

  async extract(input: ExtractionInput): Promise<MemoryCandidate[]> {
    try {
      const found: MemoryCandidate[] = [];
      for (const chunk of this.chunks(input)) found.push(...(await this.ask(input, chunk)));
      return mergeCandidates(found, CANDIDATE_LIMITS.maxPerRun);
    } catch (error) {
      // The reason only: the answer may quote the session, and the key must never reach a log.
      const reason = error instanceof LlmExtractionError ? error.message : 'the request failed';
      this.logger.warn(`LLM extraction failed (${reason}); using the rule-based extractor`);
      return this.fallback.extract(input);
    }
  }

  /** The user's own text per event, in requests of at most maxCharsPerRequest characters. */
  private chunks(input: ExtractionInput): { id: number; kind: string; text: string }[][] {
    const budget = this.options.maxCharsPerRequest ?? DEFAULT_CHARS_PER_REQUEST;
    const chunks: { id: number; kind: string; text: string }[][] = [];
    let current: { id: number; kind: string; text: string }[] = [];
    let size = 0;
    for (const event of input.events) {
      const userText =
        event.kind === 'note' ||
        event.kind === 'correction' ||
        (event.kind === 'prompt' && isUserAuthored(event.payload));
      const text = userText ? eventText(event.payload) : null;
      if (text === null) continue;
      const item = { id: event.id, kind: event.kind, text: capText(cleanLines(text), MAX_EVENT_CHARS) };
      if (current.length > 0 && size + item.text.length > budget) {
        chunks.push(current);
        current = [];
        size = 0;
      }
      current.push(item);
      size += item.text.length;
    }
    if (current.length > 0) chunks.push(current);
    return chunks;
  }

  private async ask(
    input: ExtractionInput,
    events: { id: number; kind: string; text: string }[],
  ): Promise<MemoryCandidate[]> {
    const response = await this.post({
      model: this.options.model,
      temperature: 0,
      messages: [
        { role: 'system', content: SYSTEM_PROMPT },
        { role: 'user', content: JSON.stringify({ project: input.session.project, events }) },
      ],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'memory_candidates', strict: true, schema: CANDIDATES_JSON_SCHEMA },
      },
    });
    const completion = completionSchema.safeParse(response);
    const content = completion.success ? completion.data.choices[0].message.content : null;
    if (content === null) throw new LlmExtractionError('the answer has no message content');
    let parsed: unknown;
    try {
      // Some servers wrap JSON in a Markdown fence even when asked for a schema.
      parsed = JSON.parse(content.replace(/^\s*```(?:json)?\s*|\s*```\s*$/g, ''));
    } catch {
      throw new LlmExtractionError('the answer is not JSON');
    }
    const output = candidatesSchema.safeParse(parsed);
    if (!output.success) throw new LlmExtractionError('the answer does not match the candidate schema');
    const known = new Set(events.map((event) => event.id));
    return output.data.candidates.flatMap((raw) => {
      const content = capText(cleanLines(raw.content), CANDIDATE_LIMITS.maxContentChars);
      const sourceEventIds = [...new Set(raw.source_event_ids.filter((id) => known.has(id)))];
      // Never trust the model with what the rules refuse: sources it invented, questions, nothing.
      if (sourceEventIds.length === 0 || isQuestion(content)) return [];
      if (!hasSubstance(content, { minChars: 6, minWords: 2 })) return [];
      const candidate: MemoryCandidate = {
        kind: raw.kind,
        content,
        category: cleanCategory(raw.category) ?? DEFAULT_CATEGORY[raw.kind],
        importance: cleanImportance(raw.importance) ?? DEFAULT_IMPORTANCE[raw.kind],
        tags: cleanTags(raw.tags ?? []),
        ...(raw.private === true ? { visibility: 'private' as const } : {}),
        sourceEventIds,
      };
      return [candidate];
    });
  }

  private async post(body: unknown): Promise<unknown> {
    let response: Response;
    try {
      response = await fetch(this.endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}),
        },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
    } catch (error) {
      throw new LlmExtractionError(
        this.timedOut(error) ? this.timeoutReason() : 'the endpoint is unreachable',
      );
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new LlmExtractionError(`HTTP ${response.status}`);
    }
    try {
      return await response.json();
    } catch (error) {
      throw new LlmExtractionError(
        this.timedOut(error) ? this.timeoutReason() : 'the response body is not JSON',
      );
    }
  }

  private timedOut(error: unknown): boolean {
    return error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
  }

  private timeoutReason(): string {
    return `no answer within ${this.options.timeoutMs} ms`;
  }
}
