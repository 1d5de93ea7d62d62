import { Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { JobsModule } from '@app/jobs';
import { MemoriesModule } from '@app/memories';
import { RecallModule } from '@app/recall';
import { SecretsModule } from '@app/secrets';
import { LlmSessionExtractor } from './adapters/llm-session-extractor';
import { RuleSessionExtractor } from './adapters/rule-session-extractor';
import { SessionEventRepository } from './adapters/session-event.repository';
import { StartupContextRepository } from './adapters/startup-context.repository';
import { ExtractSessionMemoriesUseCase } from './application/extract-session-memories.use-case';
import { GetSessionTimelineUseCase } from './application/get-session-timeline.use-case';
import { GetSessionUseCase } from './application/get-session.use-case';
import { ListSessionsUseCase } from './application/list-sessions.use-case';
import { ProcessImportedSessionUseCase } from './application/process-imported-session.use-case';
import { ProcessSessionEventsUseCase } from './application/process-session-events.use-case';
import { RecordSessionEventsUseCase } from './application/record-session-events.use-case';
import { STARTUP_CONTEXT_LIMITS, StartupContextUseCase } from './application/startup-context.use-case';
import { SessionImportModule } from './session-import.module';
import { SESSION_EXTRACTOR, type SessionExtractor } from './ports/session-extractor.port';

const USE_CASES = [StartupContextUseCase];

const SESSION_USE_CASES = [
  ListSessionsUseCase,
  GetSessionUseCase,
  RecordSessionEventsUseCase,
  GetSessionTimelineUseCase,
  ProcessSessionEventsUseCase,
  ExtractSessionMemoriesUseCase,
  ProcessImportedSessionUseCase,
];

/** SESSION_EXTRACTOR=llm asks the configured endpoint and falls back to the rules; rules otherwise. */
function sessionExtractor(config: AppConfig): SessionExtractor {
  const rules = new RuleSessionExtractor();
  const { extractor, llm } = config.sessions;
  if (extractor !== 'llm' || !llm.url || !llm.model) return rules;
  return new LlmSessionExtractor(
    { url: llm.url, model: llm.model, apiKey: llm.apiKey, timeoutMs: llm.timeoutMs },
    rules,
  );
}

/**
 * Agent sessions: start, end, list and read them, capture their events (the `sessions.process`
 * job, declared with @HandlesJob, follows each batch), turn an ended session's events into
 * memories (`sessions.extract`, through recall's `check`), import Claude Code transcripts (followed
 * by the `sessions.import` job), the timeline around a memory, and the startup context a session
 * begins with.
 */
@Module({
  imports: [SessionImportModule, MemoriesModule, RecallModule, JobsModule, SecretsModule],
  providers: [
    { provide: SESSION_EXTRACTOR, inject: [APP_CONFIG], useFactory: sessionExtractor },
    {
      provide: STARTUP_CONTEXT_LIMITS,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => config.sessions.startupContext,
    },
    StartupContextRepository,
    ...USE_CASES,
    SessionEventRepository,
    ...SESSION_USE_CASES,
  ],
  exports: [SessionImportModule, ...USE_CASES, ...SESSION_USE_CASES],
})
export class SessionsModule {}
