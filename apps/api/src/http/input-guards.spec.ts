import { describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { findInvalidText, jsonParseError, registerInputGuards, STREAMED_BODY } from './input-guards';

describe('findInvalidText', () => {
  it('finds NUL bytes and lone surrogates anywhere in a JSON value, including keys', () => {
    expect(findInvalidText({ content: 'a\u0000b' })).toMatch(/body.content: NUL/);
    expect(findInvalidText({ tags: ['ok', 'bad\uD800'] })).toMatch(/tags\[1\].*surrogate/);
    expect(findInvalidText({ ['k\uDC00']: 1 })).toMatch(/key/);
  });

  it('accepts ordinary text, emoji (valid surrogate pairs) and non-string values', () => {
    expect(
      findInvalidText({ content: 'deploy 🚀 on Friday', n: 1, ok: true, nested: [null, { a: 'é' }] }),
    ).toBeNull();
  });
});

describe('application/x-ndjson bodies', () => {
  const parse = async (body: string, type = 'application/x-ndjson') => {
    const fastify = Fastify({ bodyLimit: 64 });
    registerInputGuards(fastify);
    fastify.post('/echo', async (request) => ({ body: request.body as unknown }));
    try {
      const res = await fastify.inject({
        method: 'POST',
        url: '/echo',
        payload: body,
        headers: { 'content-type': type },
      });
      return { status: res.statusCode, body: res.json<{ body?: unknown }>().body };
    } finally {
      await fastify.close();
    }
  };

  it('reads one JSON value a line as an array, skipping blank lines', async () => {
    expect(await parse('{"content":"a"}\n\n{"content":"b"}\r\n')).toEqual({
      status: 200,
      body: [{ content: 'a' }, { content: 'b' }],
    });
    expect(await parse('')).toEqual({ status: 200, body: [] });
    expect(await parse('{"a":1}\n', 'application/jsonl')).toEqual({ status: 200, body: [{ a: 1 }] });
  });

  it('answers 413 for a body over the route limit', async () => {
    expect(await parse(`{"content":"${'x'.repeat(100)}"}`)).toMatchObject({ status: 413 });
  });

  it('hands a STREAMED_BODY route the unread stream, whatever its size', async () => {
    const fastify = Fastify({ bodyLimit: 64 });
    registerInputGuards(fastify);
    fastify.post('/stream', { config: STREAMED_BODY }, async (request) => {
      let bytes = 0;
      for await (const chunk of request.body as AsyncIterable<Buffer>) bytes += chunk.length;
      return { bytes };
    });
    try {
      const res = await fastify.inject({
        method: 'POST',
        url: '/stream',
        payload: 'x'.repeat(1000),
        headers: { 'content-type': 'application/x-ndjson' },
      });
      expect(res.json()).toEqual({ bytes: 1000 });
    } finally {
      await fastify.close();
    }
  });

  it('refuses a line that is not JSON, or text Postgres cannot store', async () => {
    expect((await parse('{"content":"a"}\n{nope')).status).toBe(400);
    expect((await parse('{"content":"a\\u0000"}')).status).toBe(400);
  });
});

describe('jsonParseError', () => {
  it('tells malformed JSON from a prototype-poisoning key', () => {
    expect(jsonParseError('{"content": "x"')).toMatchObject({ status: 400, code: 'malformed_json' });
    expect(jsonParseError('{"content": "x"').message).toMatch(/^Malformed JSON: /);
    // Valid JSON that Fastify's safe parser refused: a __proto__ or constructor.prototype key.
    expect(jsonParseError('{"__proto__": {"admin": true}}')).toMatchObject({
      status: 400,
      code: 'forbidden_property',
    });
  });
});
