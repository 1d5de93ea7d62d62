export interface JsonResponse<T = unknown> {
  readonly status: number;
  readonly body: T;
  readonly headers: Headers;
}

/** A tiny fetch wrapper for e2e tests: JSON in, JSON out, bearer key optional. */
export function client(baseUrl: string, key?: string) {
  const request = async <T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<JsonResponse<T>> => {
    const init: RequestInit = { method, headers: { ...headers } };
    if (key) (init.headers as Record<string, string>).authorization = `Bearer ${key}`;
    if (body !== undefined) {
      (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
    }
    const res = await fetch(`${baseUrl}${path}`, init);
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      /* non-JSON bodies are returned as text */
    }
    return { status: res.status, body: parsed as T, headers: res.headers };
  };
  return {
    get: <T = Record<string, unknown>>(path: string, headers?: Record<string, string>) =>
      request<T>('GET', path, undefined, headers),
    post: <T = Record<string, unknown>>(path: string, body?: unknown, headers?: Record<string, string>) =>
      request<T>('POST', path, body, headers),
    put: <T = Record<string, unknown>>(path: string, body?: unknown, headers?: Record<string, string>) =>
      request<T>('PUT', path, body, headers),
    delete: <T = Record<string, unknown>>(path: string, headers?: Record<string, string>) =>
      request<T>('DELETE', path, undefined, headers),
    request,
  };
}
