import { describe, expect, it } from 'vitest';
import { assertAdmin, isSystemActor, NO_USER_ID, tenantScopeOf, type SystemActor } from './actor';
import { apiKeyStatus, keyRejection } from './api-key';
import {
  ALL_SCOPES,
  hasScope,
  MEMBER_SCOPES,
  missingScopes,
  normalizeScopes,
  type Principal,
} from './principal';
import { TenancyError, TenancyErrorCode } from './tenancy.errors';

const principal = (scopes: Principal['scopes']): Principal => ({
  tenantId: '11111111-1111-4111-8111-111111111111',
  tenantSlug: 'acme',
  userId: '22222222-2222-4222-8222-222222222222',
  username: 'alice',
  keyId: '33333333-3333-4333-8333-333333333333',
  scopes,
});

describe('scopes', () => {
  it('members hold every scope except admin', () => {
    expect(MEMBER_SCOPES).not.toContain('admin');
    expect(ALL_SCOPES).toContain('admin');
    expect(hasScope(principal(MEMBER_SCOPES), 'memories:write')).toBe(true);
    expect(hasScope(principal(MEMBER_SCOPES), 'admin')).toBe(false);
  });

  it('lists the missing scopes in the order asked', () => {
    const reader = principal(['memories:read']);
    expect(missingScopes(reader, ['memories:read'])).toEqual([]);
    expect(missingScopes(reader, ['admin', 'memories:read', 'secrets:read'])).toEqual([
      'admin',
      'secrets:read',
    ]);
  });

  it('normalises stored scopes: unknown values dropped, duplicates removed, canonical order', () => {
    expect(normalizeScopes(['admin', 'bogus', 'memories:read', 'admin'])).toEqual(['memories:read', 'admin']);
  });
});

describe('actors', () => {
  const system: SystemActor = {
    kind: 'system',
    via: 'cli',
    tenantId: principal([]).tenantId,
    tenantSlug: 'acme',
  };

  it('lets admins and operators through and refuses members with forbidden', () => {
    expect(() => assertAdmin(principal(ALL_SCOPES))).not.toThrow();
    expect(() => assertAdmin(system)).not.toThrow();
    try {
      assertAdmin(principal(MEMBER_SCOPES));
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(TenancyError);
      expect((error as TenancyError).code).toBe(TenancyErrorCode.Forbidden);
    }
  });

  it('scopes an operator to its tenant with no user', () => {
    expect(isSystemActor(system)).toBe(true);
    expect(isSystemActor(principal([]))).toBe(false);
    expect(tenantScopeOf(system)).toEqual({ tenantId: system.tenantId, userId: NO_USER_ID });
  });
});

describe('key rules', () => {
  const ok = { source: 'managed' as const, revoked: false, expired: false, userDisabled: false };

  it('accepts active keys and names why others are refused', () => {
    expect(keyRejection(ok, 'managed')).toBeNull();
    expect(keyRejection({ ...ok, revoked: true }, 'managed')).toBe('revoked');
    expect(keyRejection({ ...ok, expired: true }, 'managed')).toBe('expired');
    expect(keyRejection({ ...ok, userDisabled: true }, 'managed')).toBe('user_disabled');
  });

  it('accepts opaque (non msk_) keys only when they came from the env', () => {
    expect(keyRejection({ ...ok, source: 'env' }, 'opaque')).toBeNull();
    expect(keyRejection(ok, 'opaque')).toBe('unknown');
  });

  it('derives a display status, revocation first', () => {
    const now = new Date('2030-01-01T00:00:00Z');
    const past = new Date('2029-01-01T00:00:00Z');
    expect(apiKeyStatus({ revokedAt: null, expiresAt: null }, now)).toBe('active');
    expect(apiKeyStatus({ revokedAt: null, expiresAt: past }, now)).toBe('expired');
    expect(apiKeyStatus({ revokedAt: past, expiresAt: past }, now)).toBe('revoked');
  });
});
