/**
 * A backing service (Postgres, Redis, Vault) that could not be used while a process started. Its
 * message is the one line an operator reads: which service, where, and why —
 * `cannot reach Postgres at 127.0.0.1:5432: connection refused`.
 */
export class DependencyUnavailableError extends Error {
  constructor(
    readonly dependency: string,
    readonly address: string,
    readonly reason: string,
    /** The service answered but refused us (credentials, missing database), rather than not answering. */
    readonly answered = false,
  ) {
    super(
      answered
        ? `${dependency} at ${address} refused the connection: ${reason}`
        : `cannot reach ${dependency} at ${address}: ${reason}`,
    );
    this.name = 'DependencyUnavailableError';
  }
}

/** Socket error codes in words. */
const NETWORK_REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  ETIMEDOUT: 'timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EPIPE: 'connection closed',
};

/**
 * Why a connection failed, in a few words: the socket error code when there is one (also inside a
 * `cause`, as fetch reports it), else the first line of the message. Undefined when the error is
 * not a network failure (the service answered with an error of its own).
 */
export function networkFailureReason(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_REASONS[code]) return NETWORK_REASONS[code];
    // AggregateError (a host name with several addresses, all refused): the first one's reason.
    const inner = (current as { errors?: unknown[] }).errors;
    if (Array.isArray(inner) && inner.length > 0) return networkFailureReason(inner[0]);
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The first line of an error's message. */
export function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0].trim() || 'unknown error';
}

/** `host:port` of a service URL (never its credentials), with the scheme's default port. */
export function serviceAddress(url: string, defaultPort: number): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname || 'localhost'}:${parsed.port || defaultPort}`;
  } catch {
    return '(unparseable URL)';
  }
}

/** Wraps a failed start-time connection attempt into a DependencyUnavailableError. */
export function dependencyFailure(
  dependency: string,
  address: string,
  error: unknown,
): DependencyUnavailableError {
  const network = networkFailureReason(error);
  if (network) return new DependencyUnavailableError(dependency, address, network);
  const message = firstLine(error);
  if (/time(d)?[ -]?out/i.test(message)) return new DependencyUnavailableError(dependency, address, message);
  return new DependencyUnavailableError(dependency, address, message, true);
}

/**
 * The line a process prints when it cannot start: a dependency failure as its one line, anything
 * else (a bug) with its stack.
 */
export function startupFailureMessage(error: unknown, what = 'failed to start'): string {
  if (error instanceof DependencyUnavailableError) return error.message;
  const listen = error as { code?: unknown; address?: unknown; port?: unknown };
  if (listen.code === 'EADDRINUSE' || listen.code === 'EACCES') {
    const reason = listen.code === 'EADDRINUSE' ? 'address already in use' : 'permission denied';
    return `cannot listen on ${String(listen.address)}:${String(listen.port)}: ${reason}`;
  }
  return `${what}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
}
