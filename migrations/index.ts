import { InitialSchema1763700000000 } from './1763700000000-initial-schema';

/** Every migration, oldest first. Add new ones at the end. */
export const MIGRATIONS = [InitialSchema1763700000000];
