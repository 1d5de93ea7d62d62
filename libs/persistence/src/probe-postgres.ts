import { Client } from 'pg';
import { dependencyFailure, serviceAddress } from '@app/kernel';

/**
 * Connects once and runs `SELECT 1`, so a process refuses to start with one clear line
 * (`cannot reach Postgres at db:5432: connection refused`) instead of a driver stack trace.
 */
export async function probePostgres(url: string, timeoutMs = 5_000): Promise<void> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  // A connection dropped after connect must not become an unhandled 'error' event.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (error) {
    throw dependencyFailure('Postgres', serviceAddress(url, 5432), timeoutReason(error, timeoutMs));
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** pg reports its own connect timeout as "Connection terminated due to connection timeout". */
function timeoutReason(error: unknown, timeoutMs: number): unknown {
  return error instanceof Error && /connection timeout/i.test(error.message)
    ? new Error(`timed out after ${timeoutMs} ms`)
    : error;
}
