import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CapturedEvent } from '../domain/extract-candidates';
import type { ExtractionInput } from '../ports/session-extractor.port';
import { LlmSessionExtractor, type LlmExtractorOptions } from './llm-session-extractor';
import { RuleSessionExtractor } from './rule-session-extractor';

interface Received {
  url: string;
  headers: IncomingMessage['headers'];
  body: {
    model: string;
    temperature: number;
    messages: { role: string; content: string }[];
    response_format: { type: string; json_schema: { name: string; strict: boolean; schema: object } };
  };
}

/** Plays an OpenAI-compatible chat completions endpoint on a local port (there is no network). */
class FakeCompletions {
  readonly received: Received[] = [];
  reply: (request: Received, res: ServerResponse) => void = (_req, res) =>
    this.answer(res, { candidates: [] });
  private server!: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const request = {
          url: req.url ?? '',
          headers: req.headers,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Received['body'],
        };
        this.received.push(request);
        this.reply(request, res);
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** A completion whose message content is `content` (JSON-encoded unless a string). */
  answer(res: ServerResponse, content: unknown): void {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'cmpl-1',
        object: 'chat.completion',
        choices: [
          {
            index: 0,
            finish_reason: 'stop',
            message: {
              role: 'assistant',
              content: typeof content === 'string' ? content : JSON.stringify(content),
            },
          },
        ],
      }),
    );
  }

  /** The events the extractor sent in request `index`. */
  eventsSent(index = 0): { id: number; kind: string; text: string }[] {
    return (JSON.parse(this.received[index].body.messages[1].content) as { events: never[] }).events;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

const API_KEY = 'sk-test-extractor-key-0123456789';
const events: CapturedEvent[] = [
  {
    id: 11,
    kind: 'prompt',
    payload: { prompt: 'We decided to use Redis for the job queue because BullMQ needs it' },
  },
  { id: 12, kind: 'tool_call', payload: { tool: 'Bash', input: 'cat .env' } },
  { id: 13, kind: 'observation', payload: { text: 'the build passed' } },
  { id: 14, kind: 'prompt', payload: { role: 'assistant', text: 'I will remember that.' } },
  { id: 15, kind: 'note', payload: { text: 'remember that staging resets on Mondays' } },
];
const input: ExtractionInput = { session: { id: 's-1', agent: 'claude-code', project: 'atlas' }, events };

describe('LlmSessionExtractor (against a local fake endpoint)', () => {
  const fake = new FakeCompletions();
  const rules = new RuleSessionExtractor();
  const extractor = (options: Partial<LlmExtractorOptions> = {}) =>
    new LlmSessionExtractor(
      { url: `${fake.url}/v1`, model: 'test-model', apiKey: API_KEY, timeoutMs: 5_000, ...options },
      rules,
    );
  const warnings = () => vi.mocked(Logger.prototype.warn).mock.calls.map((call) => String(call[0]));

  beforeAll(() => fake.start());
  afterAll(() => fake.stop());
  afterEach(() => {
    fake.received.length = 0;
    fake.reply = (_req, res) => fake.answer(res, { candidates: [] });
    vi.restoreAllMocks();
  });

  it('asks for a strict JSON schema with the user’s text only, and maps the answer to candidates', async () => {
    fake.reply = (_req, res) =>
      fake.answer(res, {
        candidates: [
          {
            kind: 'decision',
            content: 'The job queue runs on Redis because BullMQ needs it.',
            category: 'Architecture',
            importance: 0.8,
            tags: ['queue', 'x'.repeat(100)],
            private: false,
            source_event_ids: [11],
          },
          {
            kind: 'remember',
            content: 'Staging resets on Mondays.',
            category: 'not a slug',
            importance: 3,
            tags: [],
            private: true,
            source_event_ids: [15, 999],
          },
          // Invented sources, a question and an empty text are refused.
          {
            kind: 'remember',
            content: 'Something made up',
            category: 'x',
            importance: 0.5,
            tags: [],
            private: false,
            source_event_ids: [999],
          },
          {
            kind: 'remember',
            content: 'Should we cache it?',
            category: 'x',
            importance: 0.5,
            tags: [],
            private: false,
            source_event_ids: [11],
          },
          {
            kind: 'remember',
            content: '  ',
            category: 'x',
            importance: 0.5,
            tags: [],
            private: false,
            source_event_ids: [11],
          },
        ],
      });
    const found = await extractor().extract(input);

    expect(found).toEqual([
      {
        kind: 'decision',
        content: 'The job queue runs on Redis because BullMQ needs it.',
        category: 'architecture',
        importance: 0.8,
        tags: ['queue'],
        sourceEventIds: [11],
      },
      {
        kind: 'remember',
        content: 'Staging resets on Mondays.',
        category: 'notes',
        importance: 0.6,
        tags: [],
        visibility: 'private',
        sourceEventIds: [15],
      },
    ]);
    const [request] = fake.received;
    expect(request.url).toBe('/v1/chat/completions');
    expect(request.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(request.body).toMatchObject({
      model: 'test-model',
      temperature: 0,
      response_format: { type: 'json_schema', json_schema: { name: 'memory_candidates', strict: true } },
    });
    expect(request.body.messages.map((m) => m.role)).toEqual(['system', 'user']);
    // Tool calls, observations and the assistant's words never leave the service.
    expect(fake.eventsSent().map((e) => e.id)).toEqual([11, 15]);
    expect(request.body.messages[1].content).not.toContain('cat .env');
  });

  it('uses a full /chat/completions URL as given, sends no key when none is set, and reads a fenced answer', async () => {
    fake.reply = (_req, res) =>
      fake.answer(
        res,
        '```json\n{"candidates":[{"kind":"correction","content":"Use pnpm, not npm.","category":"correction","importance":0.7,"tags":[],"private":false,"source_event_ids":[15]}]}\n```',
      );
    const found = await extractor({ url: `${fake.url}/api/chat/completions`, apiKey: undefined }).extract(
      input,
    );
    expect(found).toMatchObject([{ kind: 'correction', content: 'Use pnpm, not npm.' }]);
    expect(fake.received[0].url).toBe('/api/chat/completions');
    expect(fake.received[0].headers.authorization).toBeUndefined();
  });

  it('splits a long session over several requests and merges the answers', async () => {
    const many: CapturedEvent[] = Array.from({ length: 6 }, (_, i) => ({
      id: 100 + i,
      kind: 'note',
      payload: { text: `note number ${i} ${'x'.repeat(40)}` },
    }));
    fake.reply = (req, res) => {
      const sent = (JSON.parse(req.body.messages[1].content) as { events: { id: number }[] }).events;
      fake.answer(res, {
        candidates: sent.map((e) => ({
          kind: 'remember',
          content: `Fact from event ${e.id}`,
          category: 'note',
          importance: 0.5,
          tags: [],
          private: false,
          source_event_ids: [e.id],
        })),
      });
    };
    const found = await extractor({ maxCharsPerRequest: 120 }).extract({ ...input, events: many });
    expect(fake.received.length).toBeGreaterThan(1);
    expect(found.map((c) => c.sourceEventIds[0])).toEqual(many.map((e) => e.id));
  });

  it.each([
    ['an HTTP error', (res: ServerResponse) => res.writeHead(500).end('boom'), 'HTTP 500'],
    ['a body that is not JSON', (res: ServerResponse) => res.writeHead(200).end('<html>'), 'not JSON'],
    [
      'content that is not JSON',
      (res: ServerResponse) => fake.answer(res, 'Sure! Here are the memories:'),
      'not JSON',
    ],
    [
      'JSON outside the schema',
      (res: ServerResponse) => fake.answer(res, { memories: ['Redis is the queue'] }),
      'does not match the candidate schema',
    ],
    [
      'an unknown kind',
      (res: ServerResponse) =>
        fake.answer(res, { candidates: [{ kind: 'fact', content: 'x y z', source_event_ids: [11] }] }),
      'does not match the candidate schema',
    ],
  ])(
    'falls back to the rules on %s, logging the reason but no key and no content',
    async (_name, reply, reason) => {
      const warn = vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      fake.reply = (_req, res) => reply(res);
      const found = await extractor().extract(input);
      expect(found).toEqual(await rules.extract(input));
      expect(found.map((c) => c.kind)).toEqual(['decision', 'remember']);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warnings()[0]).toContain(reason);
      expect(warnings()[0]).not.toContain(API_KEY);
      expect(warnings()[0]).not.toContain('Redis');
    },
  );

  it('falls back to the rules when the endpoint does not answer in time or cannot be reached', async () => {
    vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    fake.reply = () => undefined; // never answers
    expect(await extractor({ timeoutMs: 1_000 }).extract(input)).toEqual(await rules.extract(input));
    expect(warnings()[0]).toContain('no answer within 1000 ms');

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(await extractor({ url: `http://127.0.0.1:${port}/v1` }).extract(input)).toEqual(
      await rules.extract(input),
    );
    expect(warnings()[1]).toContain('unreachable');
  });

  it('sends nothing for a session without user text', async () => {
    const quiet: ExtractionInput = { ...input, events: [events[1], events[2], events[3]] };
    expect(await extractor().extract(quiet)).toEqual([]);
    expect(fake.received).toHaveLength(0);
  });
});
