import { randomBytes } from 'node:crypto';
import type { ServerSecretRepository, TransactionRunner } from '@app/persistence';

/** This installation's id: generated once, kept in the database, shared by every process. */
export const INSTALLATION_ID = Symbol('INSTALLATION_ID');

/**
 * A database that is created again, or a second installation (staging beside production) on the
 * same Redis and QUEUE_PREFIX, numbers its outbox rows from 1 again. Job ids carry this id (and the
 * row's creation time, which changes when a database is restored to an earlier point), so they never
 * repeat ids BullMQ has seen, and workers can tell another installation's jobs from their own.
 */
export async function loadInstallationId(
  transactions: TransactionRunner,
  secrets: ServerSecretRepository,
): Promise<string> {
  // server_secrets holds at least 32 random bytes; 48 bits of them name the installation.
  const value = await transactions.asSystem((tx) =>
    secrets.getOrCreate(tx, 'installation-id', randomBytes(32)),
  );
  return value.subarray(0, 6).toString('hex');
}

const OWNED_JOB_ID = /^[os]-([0-9a-f]{12})-/;

/** The installation that added a job (from its id), or undefined for ids without one. */
export function installationOfJobId(jobId: string | undefined): string | undefined {
  return jobId === undefined ? undefined : OWNED_JOB_ID.exec(jobId)?.[1];
}
