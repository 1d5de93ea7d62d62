import type { TransactionOptions } from '@app/persistence';

/**
 * Options for every memory write's transaction. Everything a write does inside it is in the
 * database (a secret is staged before and confirmed inside), so when Postgres aborts it as a
 * deadlock victim or on a serialization failure it runs once more instead of answering 500.
 */
export const WRITE_TRANSACTION: TransactionOptions = { retryConflicts: 1 };
