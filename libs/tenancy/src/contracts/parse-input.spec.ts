import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TenancyError } from '../domain/tenancy.errors';
import { parseInput } from './parse-input';

describe('parseInput (admin bodies and queries)', () => {
  const createUser = z.object({ username: z.string() });
  const migrate = z.object({ tenant: z.string().optional() });

  it('refuses an identity field the contract does not declare instead of ignoring it', () => {
    for (const field of ['user_id', 'owner', 'owner_id', 'tenant', 'tenant_id']) {
      expect(() => parseInput(createUser, { username: 'carol', [field]: 'other' })).toThrow(TenancyError);
    }
  });

  it('keeps an identity-named field the contract declares, and other unknown fields ignored', () => {
    expect(parseInput(migrate, { tenant: 'acme' })).toEqual({ tenant: 'acme' });
    expect(parseInput(createUser, { username: 'carol', created_by: 'x' })).toEqual({ username: 'carol' });
  });
});
