import { describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { findInvalidText, registerInputGuards } from './input-guards';

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
  const parse = async (body: string) => {
    const fastify = Fastify();
    registerInputGuards(fastify);
    fastify.post('/echo', async (request) => ({ body: request.body as unknown }));
    try {
      const res = await fastify.inject({
        method: 'POST',
        url: '/echo',
        payload: body,
        headers: { 'content-type': 'application/x-ndjson' },
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
  });

  it('refuses a line that is not JSON, or text Postgres cannot store', async () => {
    expect((await parse('{"content":"a"}\n{nope')).status).toBe(400);
    expect((await parse('{"content":"a\\u0000"}')).status).toBe(400);
  });
});
