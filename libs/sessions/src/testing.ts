/**
 * The test door: adapters for integration tests that wire the lib by hand. Production code
 * imports only the index (lint enforces both).
 */
export { StartupContextRepository } from './adapters/startup-context.repository';
