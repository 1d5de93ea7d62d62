import { AdminJobRepository, OutboxWriter } from '@app/jobs';
import { type TransactionRunner } from '@app/persistence';
import { SecretDetector } from '@app/secrets';
import { SessionImportRepository } from './adapters/session-import.repository';
import { SessionRepository } from './adapters/session.repository';
import { ImportClaudeCodeTranscriptUseCase } from './application/import-claude-code-transcript.use-case';
import { SessionScreen } from './application/session-screen';
import { StartSessionUseCase } from './application/start-session.use-case';
import { UpdateSessionUseCase } from './application/update-session.use-case';

/** The transcript import without a Nest container, for the CLI: the same wiring as SessionsModule. */
export function createTranscriptImportUseCase(tx: TransactionRunner): ImportClaudeCodeTranscriptUseCase {
  const sessions = new SessionRepository();
  const screen = new SessionScreen(new SecretDetector());
  const outbox = new OutboxWriter();
  return new ImportClaudeCodeTranscriptUseCase(
    tx,
    new StartSessionUseCase(tx, sessions, screen),
    new UpdateSessionUseCase(tx, sessions, screen, outbox),
    new SessionImportRepository(),
    screen,
    new AdminJobRepository(),
    outbox,
  );
}
