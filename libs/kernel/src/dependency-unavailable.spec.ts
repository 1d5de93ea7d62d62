import { describe, expect, it } from 'vitest';
import { dependencyFailure, serviceAddress, startupFailureMessage } from './dependency-unavailable';

const socketError = (code: string) => Object.assign(new Error(`connect ${code} 10.0.0.1:5432`), { code });

describe('start-time dependency failures', () => {
  it('names the service, its address and the socket error in words', () => {
    expect(dependencyFailure('Postgres', '10.0.0.1:5432', socketError('ECONNREFUSED')).message).toBe(
      'cannot reach Postgres at 10.0.0.1:5432: connection refused',
    );
    // fetch puts the socket error in `cause`; a name with several addresses gives an AggregateError.
    const fetchError = new TypeError('fetch failed', { cause: socketError('ENOTFOUND') });
    expect(dependencyFailure('Vault', 'vault:8200', fetchError).reason).toBe('host not found');
    const aggregate = Object.assign(new AggregateError([socketError('ECONNREFUSED')]), { code: undefined });
    expect(dependencyFailure('Redis', 'redis:6379', aggregate).reason).toBe('connection refused');
  });

  it('says the service answered when it refused us, e.g. for credentials', () => {
    const error = dependencyFailure(
      'Postgres',
      'db:5432',
      new Error('password authentication failed for user "x"'),
    );
    expect(error.message).toBe(
      'Postgres at db:5432 refused the connection: password authentication failed for user "x"',
    );
  });

  it('never prints credentials of a URL', () => {
    expect(serviceAddress('postgres://owner:s3cret@db.internal/memsvc', 5432)).toBe('db.internal:5432');
    expect(serviceAddress('rediss://:pw@cache:6380', 6379)).toBe('cache:6380');
  });

  it('prints one line for a dependency or a busy port, the stack for anything else', () => {
    expect(startupFailureMessage(dependencyFailure('Redis', 'r:6379', socketError('ETIMEDOUT')))).toBe(
      'cannot reach Redis at r:6379: timed out',
    );
    const busy = Object.assign(new Error('listen EADDRINUSE'), {
      code: 'EADDRINUSE',
      address: '0.0.0.0',
      port: 8080,
    });
    expect(startupFailureMessage(busy)).toBe('cannot listen on 0.0.0.0:8080: address already in use');
    expect(startupFailureMessage(new Error('bug'))).toMatch(/^failed to start: Error: bug\n\s+at /);
  });
});
