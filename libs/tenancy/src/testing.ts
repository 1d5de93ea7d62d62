/**
 * The test door: the tenancy use cases wired without a Nest container, for integration tests.
 * Production code composes TenancyModule and imports only the index (lint enforces both).
 */
export * from './tenancy.factory';
