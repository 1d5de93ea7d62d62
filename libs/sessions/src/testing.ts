/**
 * The test door: adapters for integration tests that wire the lib by hand. Production code
 * imports only the index (lint enforces both).
 */
export { StartupContextRepository } from './adapters/startup-context.repository';
export { SessionRepository } from './adapters/session.repository';
export { SessionEventRepository } from './adapters/session-event.repository';
export { SessionScreen } from './application/session-screen';
export { RuleSessionExtractor } from './adapters/rule-session-extractor';
export { LlmSessionExtractor } from './adapters/llm-session-extractor';
export { SessionImportRepository } from './adapters/session-import.repository';
