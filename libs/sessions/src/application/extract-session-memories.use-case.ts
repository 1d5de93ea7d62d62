import { Inject, Injectable, Logger } from '@nestjs/common';
import { HandlesJob, type JobPayload } from '@app/jobs';
import { DomainError } from '@app/kernel';
import { branchSchema, CreateMemoryUseCase, MAX_TAGS, type NewMemory } from '@app/memories';
import { TransactionRunner } from '@app/persistence';
import { CheckMemoryUseCase } from '@app/recall';
import { type Principal } from '@app/tenancy';
import { SessionEventRepository } from '../adapters/session-event.repository';
import { SessionRepository } from '../adapters/session.repository';
import { captureAnchors, captureBranch } from '../domain/capture-anchors';
import { decideCapture } from '../domain/capture-decision';
import { CANDIDATE_LIMITS, type MemoryCandidate } from '../domain/memory-candidate';
import type { Session } from '../domain/session';
import { STARTUP_REQUESTED_TAG } from '../domain/startup-context';
import { SESSION_EXTRACTOR, type SessionExtractor } from '../ports/session-extractor.port';

/** Every captured memory carries this tag and `session:<id>`. */
export const SESSION_CAPTURE_TAG = 'session-capture';
export const sessionTag = (sessionId: string) => `session:${sessionId}`;

/** Events read (and handed to the extractor) per step. */
const PAGE_SIZE = 200;

export type CaptureOutcome = 'stored' | 'superseded' | 'duplicate' | 'similar' | 'failed';

export interface ExtractionSummary {
  readonly events: number;
  readonly candidates: number;
  readonly outcomes: Readonly<Record<CaptureOutcome, number>>;
}

const noOutcomes = (): Record<CaptureOutcome, number> => ({
  stored: 0,
  superseded: 0,
  duplicate: 0,
  similar: 0,
  failed: 0,
});

/**
 * `sessions.extract`: turns an ended session's events into memories, as the session's user.
 *
 * The extractor proposes candidates; each goes through `check` against the user's own memories:
 * an exact or near duplicate is skipped, a correction close to an existing memory supersedes it
 * (stored with a `supersedes` link, as `memory_correct` does), anything new is stored in the
 * session's project, tagged `session-capture` and `session:<id>` (and `requested` when the user
 * explicitly asked to remember it, so the next startup context of the project lists it), with the
 * user's default visibility unless the note asked to stay private. A memory that names a file the
 * session read or changed (the hooks send each tool call's path and blob id) is anchored to it at the
 * session's commit. On a feature branch (not main, master, trunk or develop) the memory is scoped to
 * that branch until it is merged, unless the tenant turned `capture_branch_scope` off.
 *
 * Idempotent: it reads only events not yet extracted and marks them once their candidates are
 * handled; a run that dies in between is repeated, and the rule extractor then proposes the same
 * texts, which `check` (and the memories' unique content hash) answer as duplicates.
 */
@Injectable()
export class ExtractSessionMemoriesUseCase {
  private readonly logger = new Logger('SessionExtraction');

  constructor(
    private readonly tx: TransactionRunner,
    private readonly sessions: SessionRepository,
    private readonly events: SessionEventRepository,
    private readonly check: CheckMemoryUseCase,
    private readonly createMemory: CreateMemoryUseCase,
    @Inject(SESSION_EXTRACTOR) private readonly extractor: SessionExtractor,
  ) {}

  @HandlesJob('sessions.extract')
  async onJob(payload: JobPayload<'sessions.extract'>): Promise<void> {
    await this.execute(capturePrincipal(payload), payload.sessionId);
  }

  async execute(principal: Principal, sessionId: string): Promise<ExtractionSummary> {
    const outcomes = noOutcomes();
    let events = 0;
    let candidates = 0;
    const session = await this.tx.inTenant(principal, (tx) =>
      this.sessions.findForExtraction(principal, tx, sessionId),
    );
    // Re-opened before the job ran: the next end enqueues the job again.
    if (!session || session.status === 'active') return { events, candidates, outcomes };
    // A memory that names a file the session touched is anchored to it (capture-anchors.ts).
    const { touched, branch } = await this.tx.inTenant(principal, async (tx) => ({
      touched: session.project === null ? [] : await this.events.touchedFiles(principal, tx, sessionId),
      // On a feature branch, what the session learned is that branch's until it is merged.
      // A branch name git would refuse (the session's is stored as sent) scopes nothing.
      branch: captureBranch(
        session,
        branchSchema.safeParse(session.gitBranch ?? '').success &&
          (await this.sessions.captureBranchScope(tx)),
      ),
    }));

    for (;;) {
      const page = await this.tx.inTenant(principal, (tx) =>
        this.events.unextracted(principal, tx, sessionId, PAGE_SIZE),
      );
      if (page.length === 0) break;
      const found = await this.extractor.extract({ session, events: page });
      const allowed = found.slice(0, Math.max(0, CANDIDATE_LIMITS.maxPerRun - candidates));
      for (const candidate of allowed) {
        outcomes[await this.capture(principal, session, candidate, { touched, branch })] += 1;
      }
      candidates += allowed.length;
      await this.tx.inTenant(principal, (tx) =>
        this.events.markExtracted(
          principal,
          tx,
          sessionId,
          page.map((event) => event.id),
        ),
      );
      events += page.length;
      if (page.length < PAGE_SIZE) break;
    }
    await this.tx.inTenant(principal, (tx) => this.sessions.markExtracted(principal, tx, sessionId));
    if (events > 0) {
      this.logger.log(
        `session ${sessionId}: ${events} events, ${candidates} candidates (${this.extractor.name}); ` +
          Object.entries(outcomes)
            .map(([outcome, n]) => `${outcome} ${n}`)
            .join(', '),
      );
    }
    return { events, candidates, outcomes };
  }

  private async capture(
    principal: Principal,
    session: Session,
    candidate: MemoryCandidate,
    code: { touched: ReadonlyArray<{ path: string; hash: string | null }>; branch: string | undefined },
  ): Promise<CaptureOutcome> {
    const anchors = captureAnchors(candidate.content, code.touched, session);
    const memory: NewMemory = {
      content: candidate.content,
      category: candidate.category,
      tags: [
        ...new Set([
          SESSION_CAPTURE_TAG,
          sessionTag(session.id),
          // An explicit "remember that …": the next startup context of the project lists it.
          ...(candidate.kind === 'remember' ? [STARTUP_REQUESTED_TAG] : []),
          ...candidate.tags,
        ]),
      ].slice(0, MAX_TAGS),
      expandedKeywords: '',
      importance: candidate.importance,
      project: session.project,
      visibility: candidate.visibility,
      ...(anchors.length > 0 ? { anchors } : {}),
      ...(code.branch !== undefined ? { branch: code.branch } : {}),
    };
    try {
      const decision = decideCapture(candidate.kind, await this.check.execute(principal, candidate.content));
      if (decision.action === 'skip') return decision.reason;
      if (decision.action === 'supersede') {
        try {
          await this.createMemory.execute(principal, { ...memory, supersedes: decision.memoryId });
          return 'superseded';
        } catch (error) {
          // The match may have been deleted or become a cycle meanwhile: keep the correction anyway.
          if (!isCandidateError(error)) throw error;
        }
      }
      // A teammate may have stored the fact meanwhile: the store answers theirs and writes nothing.
      const stored = await this.createMemory.execute(principal, memory);
      return stored.duplicate ? 'duplicate' : 'stored';
    } catch (error) {
      // One unfit candidate must not block the rest; an outage (store, database) retries the job.
      if (!isCandidateError(error)) throw error;
      this.logger.warn(`session ${session.id}: a ${candidate.kind} candidate was refused (${error.code})`);
      return 'failed';
    }
  }
}

const isCandidateError = (error: unknown): error is DomainError =>
  error instanceof DomainError && error.kind !== 'unavailable';

/**
 * The job acts as the session's user with the key that ended the session: memory scopes only
 * (never admin), and that key's default visibility.
 */
export function capturePrincipal(payload: JobPayload<'sessions.extract'>): Principal {
  return {
    tenantId: payload.tenantId,
    userId: payload.userId,
    tenantSlug: '',
    username: '',
    keyId: payload.keyId,
    scopes: ['memories:read', 'memories:write'],
    defaultVisibility: payload.defaultVisibility,
    requestId: payload.requestId,
  };
}
