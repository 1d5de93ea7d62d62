import { Inject, Injectable } from '@nestjs/common';
import { AdminJobRepository, OutboxWriter, type AdminJob } from '@app/jobs';
import { TransactionRunner } from '@app/persistence';
import { type Principal } from '@app/tenancy';
import { SessionImportRepository, type ImportedEventRow } from '../adapters/session-import.repository';
import { capScreenedPayload, capSummary } from '../domain/claude-code-transcript';
import type { Session } from '../domain/session';
import { SessionError } from '../domain/session.errors';
import { TranscriptReading, type TimedTranscriptEvent } from '../domain/transcript-reading';
import { SessionScreen } from './session-screen';
import { StartSessionUseCase, type StartedSession } from './start-session.use-case';
import { UpdateSessionUseCase } from './update-session.use-case';

export const SESSION_IMPORT_JOB_KIND = 'sessions.import';
/** Events per INSERT (and per transaction): memory stays bounded whatever the transcript's length. */
export const TRANSCRIPT_IMPORT_BATCH = 500;

export interface TranscriptImportInput {
  /** The transcript's bytes (a request body, a file), read once, line by line. */
  readonly body: AsyncIterable<Uint8Array | string>;
  /** Project identity (a remote URL is normalised); the transcript does not name one. */
  readonly project?: string;
  readonly gitRemote?: string;
  /** Called after each stored batch with the lines read so far. */
  readonly onProgress?: (lines: number) => void;
}

export interface TranscriptImport {
  readonly sessionId: string;
  /** The follow-up job; null when the transcript was already imported whole (nothing to do). */
  readonly job: AdminJob | null;
  /** Events stored by this import. */
  readonly events: number;
  /** Events an earlier import of the same transcript had already stored. */
  readonly duplicates: number;
  readonly lines: number;
  readonly skipped: number;
  readonly ignored: number;
}

/**
 * Imports a Claude Code transcript as one of the caller's sessions, streaming: entries become
 * events (user text → prompt, tool_use → tool_call, tool results and assistant text → observation,
 * the summary → the session's summary), screened for secrets, capped, and stored in batches of
 * one multi-row INSERT each, keeping the entries' times. The session id is the transcript's
 * `sessionId`; every event is keyed by its line, so importing the same transcript again adds
 * nothing (and a longer version of it adds only the new lines).
 *
 * Then the session is ended through the ordinary session-ending path (UpdateSessionUseCase: what
 * follows an ended session follows an import too), and a `sessions.import` job with progress in
 * the `jobs` table processes the events in the background.
 */
@Injectable()
export class ImportClaudeCodeTranscriptUseCase {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(StartSessionUseCase) private readonly startSession: StartSessionUseCase,
    @Inject(UpdateSessionUseCase) private readonly updateSession: UpdateSessionUseCase,
    @Inject(SessionImportRepository) private readonly imports: SessionImportRepository,
    @Inject(SessionScreen) private readonly screen: SessionScreen,
    @Inject(AdminJobRepository) private readonly jobs: AdminJobRepository,
    @Inject(OutboxWriter) private readonly outbox: OutboxWriter,
  ) {}

  async execute(principal: Principal, input: TranscriptImportInput): Promise<TranscriptImport> {
    const reading = new TranscriptReading();
    let started: StartedSession | undefined;
    let events = 0;
    let duplicates = 0;
    let batch: TimedTranscriptEvent[] = [];

    // The session starts with the first batch: by then the entries have named it.
    const flush = async (): Promise<StartedSession> => {
      const session = (started ??= await this.start(principal, input, reading));
      if (batch.length > 0) {
        const stored = await this.store(principal, session, batch);
        events += stored;
        duplicates += batch.length - stored;
        batch = [];
        input.onProgress?.(reading.counts.lines);
      }
      return session;
    };
    for await (const event of reading.events(input.body)) {
      batch.push(event);
      if (batch.length >= TRANSCRIPT_IMPORT_BATCH) await flush();
    }
    const session = await flush();
    const counts = { sessionId: session.id, events, duplicates, ...reading.counts };

    const wasEnded = !session.created && session.status !== 'active';
    const unprocessed = await this.tx.inTenant(principal, (tx) =>
      this.imports.countUnprocessed(principal, tx, session.id),
    );
    if (wasEnded && events === 0 && unprocessed === 0) return { ...counts, job: null };
    await this.updateSession.execute(principal, session.id, {
      status: 'ended',
      endedAt: reading.facts.lastAt ?? undefined,
      summary: reading.facts.summary === null ? undefined : capSummary(reading.facts.summary),
    });
    return { ...counts, job: await this.queueFollowUp(principal, session.id) };
  }

  /** The transcript's session: created by this import, or the caller's own from an earlier one. */
  private async start(
    principal: Principal,
    input: TranscriptImportInput,
    reading: TranscriptReading,
  ): Promise<StartedSession> {
    const { facts, counts } = reading;
    if (facts.sessionId === null) {
      throw SessionError.notATranscript(
        counts.lines === 0
          ? 'The body is empty: send a Claude Code transcript (JSON Lines)'
          : `No Claude Code transcript entry with a sessionId in ${counts.lines} lines ` +
              `(${counts.skipped} were not transcript entries): send a session's .jsonl file`,
      );
    }
    return this.startSession.execute(principal, {
      id: facts.sessionId,
      agent: 'claude-code',
      project: input.project,
      gitRemote: input.gitRemote,
      cwd: facts.cwd ?? undefined,
      gitBranch: facts.gitBranch ?? undefined,
      startedAt: facts.firstAt ?? undefined,
    });
  }

  /** Screens, caps and stores one batch in one transaction; answers how many events were new. */
  private async store(principal: Principal, session: Session, batch: readonly TimedTranscriptEvent[]) {
    const rows: ImportedEventRow[] = [];
    const seen = new Set<string>();
    for (const event of batch) {
      if (seen.has(event.ref)) continue;
      seen.add(event.ref);
      const screened = this.screen.payload(event.payload) as Record<string, unknown>;
      rows.push({
        kind: event.kind,
        // The key is made here from the line's uuid (or hash), never from free text: not screened.
        payload: { ...capScreenedPayload(event.kind, screened), transcript_ref: event.ref },
        // Entries before the first timed one take the session's start: the same on every import.
        createdAt: event.at ?? session.startedAt,
        ref: event.ref,
      });
    }
    return this.tx.inTenant(principal, async (tx) => {
      if (!(await this.imports.lockOwnSession(principal, tx, session.id)))
        throw SessionError.notFound(session.id);
      return this.imports.insertNew(principal, tx, session.id, rows);
    });
  }

  private async queueFollowUp(principal: Principal, sessionId: string): Promise<AdminJob> {
    return this.tx.inTenant(principal, async (tx) => {
      const job = await this.jobs.insert(principal, tx, {
        kind: SESSION_IMPORT_JOB_KIND,
        params: { session_id: sessionId },
        createdBy: principal.userId,
      });
      await this.outbox.enqueue(principal, tx, {
        name: 'sessions.import',
        payload: {
          tenantId: principal.tenantId,
          userId: principal.userId,
          sessionId,
          jobId: job.id,
          requestId: principal.requestId,
        },
        requestId: principal.requestId,
      });
      return job;
    });
  }
}
