import { Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { JobsModule } from '@app/jobs';
import { MemoriesModule } from '@app/memories';
import { SecretsModule } from '@app/secrets';
import { SessionEventRepository } from './adapters/session-event.repository';
import { SessionRepository } from './adapters/session.repository';
import { StartupContextRepository } from './adapters/startup-context.repository';
import { GetSessionTimelineUseCase } from './application/get-session-timeline.use-case';
import { GetSessionUseCase } from './application/get-session.use-case';
import { ListSessionsUseCase } from './application/list-sessions.use-case';
import { ProcessSessionEventsUseCase } from './application/process-session-events.use-case';
import { RecordSessionEventsUseCase } from './application/record-session-events.use-case';
import { SessionScreen } from './application/session-screen';
import { StartSessionUseCase } from './application/start-session.use-case';
import { STARTUP_CONTEXT_LIMITS, StartupContextUseCase } from './application/startup-context.use-case';
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
];

/**
 * Agent sessions: start, end, list and read them, capture their events (the `sessions.process`
 * job, declared with @HandlesJob, follows each batch), the timeline around a memory, and the
 * startup context a session begins with.
 */
@Module({
  imports: [MemoriesModule, JobsModule, SecretsModule],
  providers: [
    {
      provide: STARTUP_CONTEXT_LIMITS,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => config.sessions.startupContext,
    },
    StartupContextRepository,
    ...USE_CASES,
    SessionRepository,
    SessionEventRepository,
    SessionScreen,
    ...SESSION_USE_CASES,
  ],
  exports: [...USE_CASES, ...SESSION_USE_CASES],
})
export class SessionsModule {}
