import { describe, expect, it } from 'vitest';
import {
  csrfTokenOf,
  isSessionTokenShape,
  LOGIN_STATE_TTL_SECONDS,
  loginStateOf,
  newLoginCookie,
  newSessionToken,
  sameSecret,
  sessionTokenHash,
} from './console-sign-in';
import { createHash } from 'node:crypto';

describe('console sign-in state', () => {
  const now = Date.UTC(2026, 0, 1);

  it('derives state, nonce and a PKCE S256 pair from the login cookie, the same way each time', () => {
    const cookie = newLoginCookie(3, now);
    const state = loginStateOf(cookie, now + 5_000)!;
    expect(state.issuerIndex).toBe(3);
    expect(state).toEqual(loginStateOf(cookie, now + 9_000));
    expect(new Set([state.state, state.nonce, state.codeVerifier]).size).toBe(3);
    expect(state.codeVerifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(state.codeChallenge).toBe(createHash('sha256').update(state.codeVerifier).digest('base64url'));
    expect(loginStateOf(newLoginCookie(3, now), now)!.state).not.toBe(state.state);
  });

  it('refuses an expired, malformed or altered cookie', () => {
    const cookie = newLoginCookie(0, now);
    expect(loginStateOf(cookie, now + (LOGIN_STATE_TTL_SECONDS + 1) * 1000)).toBeNull();
    expect(loginStateOf('v1.0.1.short', now)).toBeNull();
    expect(loginStateOf(`${cookie}x`, now)).toBeNull();
    // Another issuer in the same cookie derives another state: a callback for the first is refused.
    const altered = cookie.replace(/^v1\.0\./, 'v1.1.');
    expect(loginStateOf(altered, now)!.state).not.toBe(loginStateOf(cookie, now)!.state);
  });

  it('gives a session token a hash and a CSRF token bound to it', () => {
    const token = newSessionToken();
    expect(isSessionTokenShape(token)).toBe(true);
    expect(isSessionTokenShape('a.b')).toBe(false);
    expect(sessionTokenHash(token)).toHaveLength(32);
    expect(csrfTokenOf(token)).toBe(csrfTokenOf(token));
    expect(csrfTokenOf(token)).not.toBe(csrfTokenOf(newSessionToken()));
    expect(sameSecret(csrfTokenOf(token), csrfTokenOf(token))).toBe(true);
    expect(sameSecret(csrfTokenOf(token), 'x')).toBe(false);
  });
});
