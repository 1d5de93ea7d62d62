import { describe, expect, it } from 'vitest';
import { genReqId, isValidRequestId } from './request-id';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('genReqId', () => {
  it('keeps a well-formed inbound x-request-id', () => {
    expect(genReqId({ headers: { 'x-request-id': 'abc.DEF_123-xyz' } })).toBe('abc.DEF_123-xyz');
    const longest = 'a'.repeat(128);
    expect(genReqId({ headers: { 'x-request-id': longest } })).toBe(longest);
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['too long', 'a'.repeat(129)],
    ['a log-injection attempt', 'abc\n{"level":60}'],
    ['spaces', 'a b'],
    ['markup', '<script>'],
    ['non-ASCII', 'ïd'],
    ['repeated header', ['a', 'b']],
  ])('generates a UUID when the header is %s', (_case, value) => {
    const id = genReqId({ headers: { 'x-request-id': value } });
    expect(id).toMatch(UUID);
  });

  it('generates a different id for each request', () => {
    expect(genReqId({ headers: {} })).not.toBe(genReqId({ headers: {} }));
  });

  it('validates only strings', () => {
    expect(isValidRequestId(42)).toBe(false);
    expect(isValidRequestId('req-1')).toBe(true);
  });
});
