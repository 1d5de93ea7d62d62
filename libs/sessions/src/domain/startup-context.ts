import type { PinScope } from '@app/memories';

/** What a coding-agent session starts with: one compact block of what the team already knows. */

/** A memory as the startup block lists it: content on one line, possibly cut. */
export interface StartupMemory {
  readonly id: number;
  /** One line, at most STARTUP_LINE_CHARS.memory characters; a sensitive memory's redacted text. */
  readonly content: string;
  readonly category: string;
  readonly importance: number;
  readonly project: string | null;
  readonly owner: string;
  readonly isSensitive: boolean;
  readonly updatedAt: string;
  /** Memories this one replaces (`supersedes` links to live memories the caller can see). */
  readonly supersedes: readonly number[];
  /** In the pinned section: the pin that put it there (`team` when there are both). */
  readonly pin?: PinScope;
  /** A memory about code: its anchors (`path:line@commit`, the changed ones when its code changed). */
  readonly code?: { readonly state: 'current' | 'stale' | 'orphaned'; readonly anchors: readonly string[] };
}

/** An ended session's summary. */
export interface StartupSession {
  readonly id: string;
  readonly agent: string;
  readonly project: string | null;
  readonly owner: string;
  /** One line, at most STARTUP_LINE_CHARS.session characters. */
  readonly summary: string;
  readonly startedAt: string;
  readonly endedAt: string;
}

export interface StartupSections<M = StartupMemory, S = StartupSession> {
  /** Pinned: the team's pins, then the caller's own, newest pin first. */
  readonly pinned: readonly M[];
  /** What a user asked to remember (tagged STARTUP_REQUESTED_TAG), newest first. */
  readonly requested: readonly M[];
  /** Importance ≥ STARTUP_IMPORTANT_MIN, most important first. */
  readonly important: readonly M[];
  /** Decisions and corrections (by category, or replacing another memory), newest first. */
  readonly decisions: readonly M[];
  /** Memories of the sections above whose anchored code changed since (pinned ones stay pinned). */
  readonly outdated: readonly M[];
  /** Summaries of the newest ended sessions the caller can read, newest first. */
  readonly sessions: readonly S[];
}

/** The block's two limits: characters, and tokens as `estimateTokens` (libs/kernel) counts them. */
export interface StartupBudget {
  readonly chars: number;
  readonly tokens: number;
}

/** What was left out to stay within the budget, per section: memory ids, session ids. */
export type StartupLeftOut = {
  readonly [K in keyof StartupSections]: K extends 'sessions' ? readonly string[] : readonly number[];
};

export interface StartupContext {
  /** The normalised project identity, or null for every project. */
  readonly project: string | null;
  /** The character budget. */
  readonly budget: number;
  /** The token budget. */
  readonly tokens: number;
  /** The ready-to-inject block; never longer than `budget`, never over `tokens` (estimated). */
  readonly text: string;
  /** `estimateTokens(text)`. */
  readonly estimatedTokens: number;
  /** What the text lists, section by section, in the same order. */
  readonly sections: StartupSections;
  /** Candidates were left out to stay within the budget. */
  readonly truncated: boolean;
  readonly omitted: number;
  readonly leftOut: StartupLeftOut;
}

/** "0.8 and above for what every session should know" (the importance advice given to agents). */
export const STARTUP_IMPORTANT_MIN = 0.8;
/** Categories that hold decisions and corrections (every write folds a singular into these). */
export const STARTUP_DECISION_CATEGORIES: readonly string[] = ['decisions', 'corrections'];
/** Smallest budget a request may ask for: room for the header, one item and the truncation note. */
export const MIN_STARTUP_BUDGET = 500;
/** Smallest token budget a request may ask for (the same room, in estimated tokens). */
export const MIN_STARTUP_TOKENS = 150;
/**
 * The tag of a memory a user explicitly asked to keep ("remember that …" in a prompt, `/remember`,
 * a `session_note`): the next startup context of its project lists it.
 */
export const STARTUP_REQUESTED_TAG = 'requested';
/** Pinned and requested memories listed at most. */
export const STARTUP_PINNED = 20;
export const STARTUP_REQUESTED = 10;
/** Longest text of one item, so that one long memory cannot crowd out the rest. */
export const STARTUP_LINE_CHARS = { memory: 200, session: 300 } as const;
/** Recent session summaries listed at most. */
export const STARTUP_SESSIONS = 5;
/** Longest project identity: memories' `project` holds at most this many characters. */
export const MAX_STARTUP_PROJECT_LENGTH = 200;

/** Candidates fetched per memory section: enough to fill a large budget, never unbounded. */
export function startupCandidates(budget: number): number {
  return Math.min(50, Math.max(10, Math.ceil(budget / 250)));
}
