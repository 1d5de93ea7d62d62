import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The console's sign-in with an identity provider, without server state before the callback: the
 * login cookie holds a random secret (with the issuer chosen and when), and the authorization
 * request's `state`, `nonce` and PKCE `code_verifier` are all derived from it by HMAC. Only the browser
 * that started the sign-in holds the cookie (HttpOnly, SameSite=Lax), so only it can finish it: a
 * callback whose `state` does not derive from the cookie is refused, and a cookie whose issuer or
 * time was changed derives another `state`.
 */
export const LOGIN_STATE_TTL_SECONDS = 600;

export interface LoginState {
  /** The issuer's position in OAUTH_ISSUERS (the cookie never carries a URL). */
  readonly issuerIndex: number;
  /** Seconds since the epoch. */
  readonly issuedAt: number;
  readonly state: string;
  readonly nonce: string;
  readonly codeVerifier: string;
  /** S256 of the verifier. */
  readonly codeChallenge: string;
}

const b64url = (bytes: Buffer) => bytes.toString('base64url');

/** A new login cookie value: `v1.<issuer index>.<issued at>.<random>`. */
export function newLoginCookie(issuerIndex: number, nowMs: number): string {
  return `v1.${issuerIndex}.${Math.floor(nowMs / 1000)}.${b64url(randomBytes(32))}`;
}

/** What a login cookie value derives, or null when it is malformed or older than its TTL. */
export function loginStateOf(cookie: string, nowMs: number): LoginState | null {
  const match = /^v1\.(\d{1,2})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(cookie);
  if (!match) return null;
  const issuedAt = Number(match[2]);
  const age = nowMs / 1000 - issuedAt;
  if (age < -60 || age > LOGIN_STATE_TTL_SECONDS) return null;
  const derive = (purpose: string) => b64url(createHmac('sha256', cookie).update(purpose).digest());
  const codeVerifier = derive('pkce');
  return {
    issuerIndex: Number(match[1]),
    issuedAt,
    state: derive('state'),
    nonce: derive('nonce'),
    codeVerifier,
    codeChallenge: b64url(createHash('sha256').update(codeVerifier).digest()),
  };
}

/** A console session's token: 32 random bytes; the database keeps only its SHA-256. */
export function newSessionToken(): string {
  return b64url(randomBytes(32));
}

export function sessionTokenHash(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

/** Whether a cookie value has the shape of a session token (anything else is not looked up). */
export function isSessionTokenShape(value: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(value);
}

/**
 * The CSRF token of a session: derived from the session's secret token, so it is bound to the
 * session, needs no storage, and cannot be computed by a page that cannot read the HttpOnly cookie.
 * The console reads it from `GET /auth/session` (same origin only) and sends it as `X-CSRF-Token`.
 */
export function csrfTokenOf(sessionToken: string): string {
  return b64url(createHmac('sha256', sessionToken).update('csrf').digest());
}

/** Constant-time comparison of two strings. */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
