import { Module } from '@nestjs/common';
import { JobsModule } from '@app/jobs';
import { MemoriesModule } from '@app/memories';
import { SecretsModule } from '@app/secrets';
import { SessionEventRepository } from './adapters/session-event.repository';
import { SessionImportRepository } from './adapters/session-import.repository';
import { SessionRepository } from './adapters/session.repository';
import { StartupContextRepository } from './adapters/startup-context.repository';
import { GetSessionTimelineUseCase } from './application/get-session-timeline.use-case';
import { GetSessionUseCase } from './application/get-session.use-case';
import { ImportClaudeCodeTranscriptUseCase } from './application/import-claude-code-transcript.use-case';
import { ListSessionsUseCase } from './application/list-sessions.use-case';
import { ProcessImportedSessionUseCase } from './application/process-imported-session.use-case';
import { ProcessSessionEventsUseCase } from './application/process-session-events.use-case';
import { RecordSessionEventsUseCase } from './application/record-session-events.use-case';
import { SessionScreen } from './application/session-screen';
import { StartSessionUseCase } from './application/start-session.use-case';
import { StartupContextUseCase } from './application/startup-context.use-case';
import { UpdateSessionUseCase } from './application/update-session.use-case';

const USE_CASES = [StartupContextUseCase];

const SESSION_USE_CASES = [
  StartSessionUseCase,
  UpdateSessionUseCase,
  ListSessionsUseCase,
  GetSessionUseCase,
  RecordSessionEventsUseCase,
  GetSessionTimelineUseCase,
  ProcessSessionEventsUseCase,
  ImportClaudeCodeTranscriptUseCase,
  ProcessImportedSessionUseCase,
];

/**
 * Agent sessions: start, end, list and read them, capture their events (the `sessions.process`
 * job, declared with @HandlesJob, follows each batch), import Claude Code transcripts (followed by
 * the `sessions.import` job), the timeline around a memory, and the startup context a session
 * begins with.
 */
@Module({
  imports: [MemoriesModule, JobsModule, SecretsModule],
  providers: [
    StartupContextRepository,
    ...USE_CASES,
    SessionRepository,
    SessionEventRepository,
    SessionImportRepository,
    SessionScreen,
    ...SESSION_USE_CASES,
  ],
  exports: [...USE_CASES, ...SESSION_USE_CASES],
})
export class SessionsModule {}
