import { describe, expect, it } from 'vitest';
import { findInvalidText } from './input-guards';

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
