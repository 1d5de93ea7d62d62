import { describe, expect, it } from 'vitest';
import { extractCandidates, type CapturedEvent } from './extract-candidates';
import { CANDIDATE_LIMITS } from './memory-candidate';
import type { EventKind } from './session';

let nextId = 1;
const event = (kind: EventKind, payload: unknown): CapturedEvent => ({ id: nextId++, kind, payload });

describe('extractCandidates', () => {
  it('turns a note event into a note memory, keeping what the note asks for', () => {
    const note = event('note', {
      text: 'The nightly export runs at 02:00 UTC',
      category: 'Ops',
      tags: ['export', 'cron'],
      importance: 0.9,
    });
    expect(extractCandidates([note])).toEqual([
      {
        kind: 'remember',
        content: 'The nightly export runs at 02:00 UTC',
        category: 'ops',
        importance: 0.9,
        tags: ['export', 'cron'],
        sourceEventIds: [note.id],
      },
    ]);
  });

  it('uses defaults for what a note gets wrong, and drops the "remember that" of a one-line note', () => {
    const note = event('note', {
      note: 'remember that staging resets every Monday',
      category: 'Not A Slug!',
      tags: 'a, b,, ' + 'x'.repeat(65),
      importance: 7,
    });
    expect(extractCandidates([note])).toEqual([
      {
        kind: 'remember',
        content: 'Staging resets every Monday.',
        category: 'notes',
        importance: 0.6,
        tags: ['a', 'b'],
        sourceEventIds: [note.id],
      },
    ]);
  });

  it('keeps the lines of a multi-line note and caps a long one at a word', () => {
    const [multi] = extractCandidates([
      event('note', { content: 'Release steps:\n1. tag\n2. push the tag' }),
    ]);
    expect(multi.content).toBe('Release steps:\n1. tag\n2. push the tag');
    const [long] = extractCandidates([event('note', { text: 'word '.repeat(1000) })]);
    expect(long.content.length).toBeLessThanOrEqual(CANDIDATE_LIMITS.maxContentChars);
    expect(long.content).toMatch(/word…$/);
  });

  it('reads a note that states a decision as a decision', () => {
    expect(extractCandidates([event('note', { text: 'We decided to drop Node 18 support' })])).toMatchObject([
      {
        kind: 'decision',
        category: 'decisions',
        importance: 0.7,
        content: 'We decided to drop Node 18 support.',
      },
    ]);
  });

  it('makes a private memory when the note asks for it', () => {
    const found = extractCandidates([
      event('note', { text: 'my VPN profile is corp-eu', visibility: 'private' }),
      event('note', { text: 'my shell is fish', private: true }),
      event('note', { text: '(private) my desk is 4B' }),
      event('note', { text: 'the team channel is #atlas' }),
    ]);
    expect(found.map((c) => c.visibility)).toEqual(['private', 'private', 'private', undefined]);
  });

  it('turns a correction event into a correction, in the canonical form when it has one', () => {
    const found = extractCandidates([
      event('correction', { text: 'No, use pnpm instead of npm' }),
      event('correction', { correction: 'Actually, the API listens on 8080' }),
    ]);
    expect(found).toMatchObject([
      { kind: 'correction', category: 'corrections', importance: 0.7, content: 'Use pnpm instead of npm.' },
      { kind: 'correction', content: 'The API listens on 8080.' },
    ]);
  });

  it('finds phrases in user prompts only: not in assistant turns, tool calls or observations', () => {
    const said = 'Remember that the payments service is owned by team Orca';
    const prompt = event('prompt', { prompt: said });
    expect(
      extractCandidates([
        prompt,
        event('prompt', { role: 'assistant', text: said }),
        event('tool_call', { tool: 'Bash', input: said }),
        event('observation', { text: said }),
      ]),
    ).toEqual([
      {
        kind: 'remember',
        content: 'The payments service is owned by team Orca.',
        category: 'notes',
        importance: 0.6,
        tags: [],
        sourceEventIds: [prompt.id],
      },
    ]);
  });

  it('reads chat content blocks', () => {
    const found = extractCandidates([
      event('prompt', {
        role: 'user',
        content: [
          { type: 'image', source: '…' },
          { type: 'text', text: "Don't use axios, use fetch" },
        ],
      }),
    ]);
    expect(found).toMatchObject([{ kind: 'correction', content: 'Use fetch, not axios.' }]);
  });

  it('merges the same text from several events into one candidate with every source', () => {
    const a = event('prompt', { text: 'remember that CI runs on ARM' });
    const b = event('note', { text: 'Remember that CI runs on ARM!' });
    expect(extractCandidates([a, b])).toMatchObject([
      { content: 'CI runs on ARM.', sourceEventIds: [a.id, b.id] },
    ]);
  });

  it('skips empty, question, secret-only and text-less events', () => {
    expect(
      extractCandidates([
        event('note', { text: '   ' }),
        event('note', { text: 'should we cache the token?' }),
        event('note', { text: '[REDACTED:github-token]' }),
        event('note', { other: 'field' }),
        event('note', 'not an object'),
        event('correction', { text: 'no' }),
        event('prompt', { text: 'do you remember how we fixed it?' }),
      ]),
    ).toEqual([]);
  });

  it('keeps redaction placeholders as they are (the secret was never stored)', () => {
    const [found] = extractCandidates([
      event('note', { text: 'The deploy token is [REDACTED:github-token]' }),
    ]);
    expect(found.content).toBe('The deploy token is [REDACTED:github-token]');
  });

  it(`answers at most ${CANDIDATE_LIMITS.maxPerRun} candidates`, () => {
    const events = Array.from({ length: 80 }, (_, i) => event('note', { text: `fact number ${i} is true` }));
    expect(extractCandidates(events)).toHaveLength(CANDIDATE_LIMITS.maxPerRun);
  });
});
