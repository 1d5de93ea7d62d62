import { describe, expect, it } from 'vitest';
import { identityFieldIn } from './identity-fields';

describe('identity fields in a request', () => {
  it('names the field, and the item of an array', () => {
    expect(identityFieldIn({ content: 'x', user_id: 'bob' })).toBe('user_id');
    expect(identityFieldIn([{ content: 'a' }, { content: 'b', tenant_id: 't' }])).toBe('1.tenant_id');
  });

  it('finds nothing in ordinary input, even when a value mentions an owner', () => {
    expect(identityFieldIn({ content: 'the owner is bob', tags: ['owner'] })).toBeUndefined();
    expect(identityFieldIn('user_id')).toBeUndefined();
    expect(identityFieldIn(null)).toBeUndefined();
    expect(identityFieldIn([[{ user_id: 'nested arrays are not bodies we accept' }]])).toBeUndefined();
  });
});
