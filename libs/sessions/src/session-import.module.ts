import { Module } from '@nestjs/common';
import { JobsModule } from '@app/jobs';
import { SecretsModule } from '@app/secrets';
import { TenancyModule } from '@app/tenancy';
import { SessionImportRepository } from './adapters/session-import.repository';
import { SessionRepository } from './adapters/session.repository';
import { ImportClaudeCodeTranscriptUseCase } from './application/import-claude-code-transcript.use-case';
import { SessionScreen } from './application/session-screen';
import { StartSessionUseCase } from './application/start-session.use-case';
import { UpdateSessionUseCase } from './application/update-session.use-case';

const USE_CASES = [StartSessionUseCase, UpdateSessionUseCase, ImportClaudeCodeTranscriptUseCase];

/**
 * Sessions as written: start, update (end), and the import of a Claude Code transcript as a
 * session, whose memories the `sessions.import` job (in `SessionsModule`) then extracts.
 * `SessionsModule` builds on it; the CLI imports it alone (no recall, no models).
 * Needs the global PersistenceModule and ConfigModule.
 */
@Module({
  imports: [JobsModule, SecretsModule, TenancyModule],
  providers: [SessionRepository, SessionScreen, SessionImportRepository, ...USE_CASES],
  exports: [SessionRepository, SessionScreen, SessionImportRepository, ...USE_CASES],
})
export class SessionImportModule {}
