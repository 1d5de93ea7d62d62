import type { TransactionOptions } from '@app/persistence';

/**
 * Options for the reads whose statements are the visibility branches (list, get): their plans do
 * not depend on which tenant or caller asks, so they are planned once per connection; they only
 * read, so a read replica may answer them.
 */
export const READ_TRANSACTION: TransactionOptions = { genericPlans: true, readOnly: true };
