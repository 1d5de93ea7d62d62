import { Inject, Injectable } from '@nestjs/common';
import { clipLine, projectIdentity } from '@app/kernel';
import { anchorLabel, codeStateOf, MemoryLookup, sensitivePlaceholder, type Memory } from '@app/memories';
import { READ_ONLY, TransactionRunner } from '@app/persistence';
import { RecalledTextScreen } from '@app/secrets';
import { type Principal } from '@app/tenancy';
import { SessionRepository } from '../adapters/session.repository';
import {
  StartupContextRepository,
  type StartupCandidate,
  type StartupSectionQuery,
} from '../adapters/startup-context.repository';
import type { Session } from '../domain/session';
import { SessionError } from '../domain/session.errors';
import { buildStartupBlock } from '../domain/startup-block';
import {
  MAX_STARTUP_PROJECT_LENGTH,
  MIN_STARTUP_BUDGET,
  MIN_STARTUP_TOKENS,
  STARTUP_LINE_CHARS,
  STARTUP_PINNED,
  STARTUP_REQUESTED,
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
  /** Tokens (estimated) the block may take; the configured default when absent. */
  readonly tokens?: number;
  /** The session's branch: memories scoped to that branch of the project are listed too. */
  readonly branch?: string;
}

/** Budgets of the block when a request names none, and the largest ones it may ask for (configuration). */
export interface StartupContextLimits {
  readonly defaultChars: number;
  readonly maxChars: number;
  readonly defaultTokens: number;
  readonly maxTokens: number;
}
export const STARTUP_CONTEXT_LIMITS = Symbol('STARTUP_CONTEXT_LIMITS');

/**
 * What an agent should know when a session starts, as one block within a character and a token
 * budget: the pinned memories, what users asked to remember, the important memories, the newest
 * decisions and corrections, and the summaries of the last ended sessions of the project, each
 * memory listed once (in the first section that has it). REST and MCP answer the same block.
 */
@Injectable()
export class StartupContextUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly startup: StartupContextRepository,
    private readonly memories: MemoryLookup,
    private readonly sessions: SessionRepository,
    private readonly screen: RecalledTextScreen,
    @Inject(STARTUP_CONTEXT_LIMITS) private readonly limits: StartupContextLimits,
  ) {}

  async execute(principal: Principal, input: StartupContextInput = {}): Promise<StartupContext> {
    const budget = input.budget ?? this.limits.defaultChars;
    if (!Number.isInteger(budget) || budget < MIN_STARTUP_BUDGET || budget > this.limits.maxChars) {
      throw SessionError.startupBudget(budget, this.limits.maxChars);
    }
    const tokens = input.tokens ?? this.limits.defaultTokens;
    if (!Number.isInteger(tokens) || tokens < MIN_STARTUP_TOKENS || tokens > this.limits.maxTokens) {
      throw SessionError.startupTokens(tokens, this.limits.maxTokens);
    }
    const project = projectIdentity({ project: input.project });
    if (project !== null && project.length > MAX_STARTUP_PROJECT_LENGTH) {
      throw SessionError.startupProject(project.length);
    }
    const limit = startupCandidates(budget);
    // A branch-scoped memory needs its project: without one, no branch applies.
    const branch = project !== null ? (input.branch ?? null) : null;
    const sections = await this.tx.inTenant(
      principal,
      async (tx) => {
        const listed = new Set<number>();
        // Each section leaves out what an earlier one lists; it fetches as many more as they may take away.
        const unlisted = (candidates: StartupCandidate[], max: number) => {
          const kept = candidates.filter((c) => !listed.has(c.id)).slice(0, max);
          for (const c of kept) listed.add(c.id);
          return kept;
        };
        const pinned = unlisted(
          await this.startup.pinned(principal, tx, { project, branch, limit: STARTUP_PINNED }),
          STARTUP_PINNED,
        );
        const section = async (name: StartupSectionQuery, max: number) =>
          unlisted(
            await this.startup.candidates(principal, tx, {
              section: name,
              project,
              branch,
              limit: max + listed.size,
            }),
            max,
          );
        const requested = await section('requested', STARTUP_REQUESTED);
        const important = await section('important', limit);
        const decisions = await section('decisions', limit);
        const rows = await this.memories.findVisible(principal, tx, [...listed]);
        const byId = new Map(rows.map((memory) => [memory.id, memory]));
        const pick = (candidates: StartupCandidate[]) =>
          candidates.flatMap((c) => {
            const memory = byId.get(c.id);
            return memory ? [this.toStartupMemory(memory, c)] : [];
          });
        const summarised = await this.sessions.listSummarised(principal, tx, {
          project,
          limit: STARTUP_SESSIONS,
        });
        // A memory whose code changed since is not served as current: it moves to its own section.
        const outdated = (m: StartupMemory) => m.code !== undefined && m.code.state !== 'current';
        const current = (items: StartupMemory[]) => items.filter((m) => !outdated(m));
        const [listedRequested, listedImportant, listedDecisions] = [requested, important, decisions].map(
          pick,
        );
        return {
          pinned: pick(pinned),
          requested: current(listedRequested),
          important: current(listedImportant),
          decisions: current(listedDecisions),
          outdated: [...listedRequested, ...listedImportant, ...listedDecisions].filter(outdated),
          sessions: summarised.map((session) => this.toStartupSession(session)),
        };
      },
      READ_ONLY,
    );
    return {
      project,
      budget,
      tokens,
      ...buildStartupBlock({ project, budget: { chars: budget, tokens }, sections }),
    };
  }

  /**
   * Text is screened with today's detector rules before it is cut to one line (a cut could split
   * a secret so that no rule recognises it). A sensitive memory shows its redacted text (never the
   * secret) and how to reveal it.
   */
  private toStartupMemory(memory: Memory, candidate: StartupCandidate): StartupMemory {
    const line = clipLine(this.screen.text(memory.content), STARTUP_LINE_CHARS.memory);
    const state = codeStateOf(memory.anchors);
    const changed = memory.anchors?.filter((a) => a.state !== 'current') ?? [];
    return {
      id: memory.id,
      content: memory.isSensitive ? `${line} ${sensitivePlaceholder(memory.id)}` : line,
      category: memory.category,
      importance: memory.importance,
      project: memory.project,
      owner: memory.owner,
      isSensitive: memory.isSensitive,
      updatedAt: memory.updatedAt,
      supersedes: candidate.supersedes,
      ...(candidate.pin ? { pin: candidate.pin } : {}),
      ...(state !== null
        ? {
            code: {
              state,
              anchors: (state === 'current' ? (memory.anchors ?? []) : changed).map((a) =>
                this.screen.text(anchorLabel(a)),
              ),
            },
          }
        : {}),
    };
  }

  private toStartupSession(session: Session): StartupSession {
    return {
      id: session.id,
      agent: session.agent,
      project: session.project,
      owner: session.owner,
      summary: clipLine(this.screen.text(session.summary ?? ''), STARTUP_LINE_CHARS.session),
      startedAt: session.startedAt,
      endedAt: session.endedAt ?? session.updatedAt,
    };
  }
}
