import { Inject, Injectable } from '@nestjs/common';
import { clipLine, projectIdentity } from '@app/kernel';
import { MemoryLookup, sensitivePlaceholder, type Memory } from '@app/memories';
import { TransactionRunner } from '@app/persistence';
import { type Principal } from '@app/tenancy';
import { SessionRepository } from '../adapters/session.repository';
import { StartupContextRepository, type StartupCandidate } from '../adapters/startup-context.repository';
import type { Session } from '../domain/session';
import { SessionError } from '../domain/session.errors';
import { buildStartupBlock } from '../domain/startup-block';
import {
  MAX_STARTUP_PROJECT_LENGTH,
  MIN_STARTUP_BUDGET,
  STARTUP_LINE_CHARS,
  STARTUP_SESSIONS,
  startupCandidates,
  type StartupContext,
  type StartupMemory,
  type StartupSession,
} from '../domain/startup-context';

export interface StartupContextInput {
  /** A project identity or a git remote URL; every project when absent. */
  readonly project?: string;
  /** Characters the block may take; the configured default when absent. */
  readonly budget?: number;
}

/** Budget of the block when a request names none, and the largest one it may ask for (configuration). */
export interface StartupContextLimits {
  readonly defaultChars: number;
  readonly maxChars: number;
}
export const STARTUP_CONTEXT_LIMITS = Symbol('STARTUP_CONTEXT_LIMITS');

/**
 * What an agent should know when a session starts, as one block within a character budget: the
 * important memories, the newest decisions and corrections, and the summaries of the last ended
 * sessions of the project, each memory listed once. REST and MCP answer the same block.
 */
@Injectable()
export class StartupContextUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly startup: StartupContextRepository,
    private readonly memories: MemoryLookup,
    private readonly sessions: SessionRepository,
    @Inject(STARTUP_CONTEXT_LIMITS) private readonly limits: StartupContextLimits,
  ) {}

  async execute(principal: Principal, input: StartupContextInput = {}): Promise<StartupContext> {
    const budget = input.budget ?? this.limits.defaultChars;
    if (!Number.isInteger(budget) || budget < MIN_STARTUP_BUDGET || budget > this.limits.maxChars) {
      throw SessionError.startupBudget(budget, this.limits.maxChars);
    }
    const project = projectIdentity({ project: input.project });
    if (project !== null && project.length > MAX_STARTUP_PROJECT_LENGTH) {
      throw SessionError.startupProject(project.length);
    }
    const limit = startupCandidates(budget);
    const sections = await this.tx.inTenant(principal, async (tx) => {
      const important = await this.startup.candidates(principal, tx, {
        section: 'important',
        project,
        limit,
      });
      const listed = new Set(important.map((c) => c.id));
      // Fetch as many more as `important` may take away, so `limit` decisions remain.
      const decisions = (
        await this.startup.candidates(principal, tx, {
          section: 'decisions',
          project,
          limit: limit + important.length,
        })
      )
        .filter((c) => !listed.has(c.id))
        .slice(0, limit);
      const rows = await this.memories.findVisible(principal, tx, [
        ...important.map((c) => c.id),
        ...decisions.map((c) => c.id),
      ]);
      const byId = new Map(rows.map((memory) => [memory.id, memory]));
      const pick = (candidates: StartupCandidate[]) =>
        candidates.flatMap((c) => {
          const memory = byId.get(c.id);
          return memory ? [toStartupMemory(memory, c.supersedes)] : [];
        });
      const summarised = await this.sessions.listSummarised(principal, tx, {
        project,
        limit: STARTUP_SESSIONS,
      });
      return {
        important: pick(important),
        decisions: pick(decisions),
        sessions: summarised.map(toStartupSession),
      };
    });
    return { project, budget, ...buildStartupBlock({ project, budget, sections }) };
  }
}

/** A sensitive memory shows its redacted text (never the secret) and how to reveal it. */
function toStartupMemory(memory: Memory, supersedes: readonly number[]): StartupMemory {
  const line = clipLine(memory.content, STARTUP_LINE_CHARS.memory);
  return {
    id: memory.id,
    content: memory.isSensitive ? `${line} ${sensitivePlaceholder(memory.id)}` : line,
    category: memory.category,
    importance: memory.importance,
    project: memory.project,
    owner: memory.owner,
    isSensitive: memory.isSensitive,
    updatedAt: memory.updatedAt,
    supersedes,
  };
}

function toStartupSession(session: Session): StartupSession {
  return {
    id: session.id,
    agent: session.agent,
    project: session.project,
    owner: session.owner,
    summary: clipLine(session.summary ?? '', STARTUP_LINE_CHARS.session),
    startedAt: session.startedAt,
    endedAt: session.endedAt ?? session.updatedAt,
  };
}
