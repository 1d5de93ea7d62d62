// The console's only way to the service: same-origin fetches to /api, signed in one of two ways.
// With an API key: the key goes in the Authorization header; it lives in sessionStorage (this tab
// only, gone when it closes), is never put in a URL and never written anywhere else. With the
// team's identity provider: the service's HttpOnly session cookie (never readable here), and the
// session's CSRF token (kept in memory only) in X-CSRF-Token on every request.

const KEY_ITEM = 'memsvc.api-key';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

type SignedOutListener = (reason: string) => void;
const signedOutListeners = new Set<SignedOutListener>();

export function storedKey(): string | null {
  return sessionStorage.getItem(KEY_ITEM);
}

export function rememberKey(key: string): void {
  sessionStorage.setItem(KEY_ITEM, key);
}

/** The session's CSRF token while signed in with the identity provider (memory only). */
let csrfToken: string | null = null;

export interface SsoSession {
  readonly signed_in: true;
  readonly username: string;
  readonly csrf_token: string;
}

/** The identity provider's session this browser holds, if any (the cookie is sent, never read). */
export async function resumeSession(): Promise<SsoSession | null> {
  const res = await fetch('/auth/session', { credentials: 'same-origin', cache: 'no-store' });
  if (!res.ok) return null;
  const session = (await res.json()) as SsoSession | { signed_in: false };
  if (!session.signed_in) return null;
  csrfToken = session.csrf_token;
  return session;
}

export function signedInWithSso(): boolean {
  return csrfToken !== null;
}

export interface SignInProvider {
  readonly issuer: string;
  readonly label: string;
  readonly login_url: string;
}

export async function signInProviders(): Promise<SignInProvider[]> {
  const res = await fetch('/auth/providers', { credentials: 'omit', cache: 'no-store' });
  if (!res.ok) return [];
  return ((await res.json()) as { providers: SignInProvider[] }).providers;
}

export function signOut(reason = ''): void {
  sessionStorage.removeItem(KEY_ITEM);
  if (csrfToken !== null) {
    const token = csrfToken;
    csrfToken = null;
    // Ends the session on the server and clears its cookie.
    void fetch('/auth/logout', {
      method: 'POST',
      headers: { 'x-csrf-token': token },
      credentials: 'same-origin',
    }).catch(() => undefined);
  }
  for (const listener of signedOutListeners) listener(reason);
}

export function onSignedOut(listener: SignedOutListener): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

export interface RequestOptions {
  readonly body?: unknown;
  /** Use this key instead of the stored one (the login form's check). */
  readonly key?: string;
}

export async function api<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const key = options.key ?? storedKey();
  const headers: Record<string, string> = { accept: 'application/json' };
  if (key) headers.authorization = `Bearer ${key}`;
  else if (csrfToken !== null) headers['x-csrf-token'] = csrfToken;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    credentials: key ? 'omit' : 'same-origin',
    cache: 'no-store',
  });
  const text = await res.text();
  const parsed: unknown = text === '' ? undefined : safeJson(text);
  if (!res.ok) {
    const { detail, code } = (parsed ?? {}) as { detail?: string; code?: string };
    const error = new ApiError(res.status, code ?? String(res.status), detail ?? res.statusText);
    // A stored key the service no longer accepts (revoked, expired, user disabled): back to login.
    if (res.status === 401 && !options.key) {
      signOut(
        csrfToken !== null
          ? `Your session has ended (${error.message}).`
          : `The service refused your key (${error.message}). Sign in with a valid key.`,
      );
    }
    throw error;
  }
  return parsed as T;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { detail: text };
  }
}

export const get = <T>(path: string) => api<T>('GET', path);
export const post = <T>(path: string, body: unknown = {}) => api<T>('POST', path, { body });
export const put = <T>(path: string, body: unknown) => api<T>('PUT', path, { body });
export const del = <T>(path: string) => api<T>('DELETE', path);

/** `?a=1&b=x` from the defined, non-empty values. */
export function query(params: Record<string, string | number | boolean | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}
