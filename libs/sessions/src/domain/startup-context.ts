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
  /** Importance ≥ STARTUP_IMPORTANT_MIN, most important first. */
  readonly important: readonly M[];
  /** Decisions and corrections (by category, or replacing another memory), newest first. */
  readonly decisions: readonly M[];
  /** Summaries of the newest ended sessions the caller can read, newest first. */
  readonly sessions: readonly S[];
}

export interface StartupContext {
  /** The normalised project identity, or null for every project. */
  readonly project: string | null;
  readonly budget: number;
  /** The ready-to-inject block; never longer than `budget`. */
  readonly text: string;
  /** What the text lists, section by section, in the same order. */
  readonly sections: StartupSections;
  /** Candidates were left out to stay within the budget. */
  readonly truncated: boolean;
  readonly omitted: number;
}

/** "0.8 and above for what every session should know" (the importance advice given to agents). */
export const STARTUP_IMPORTANT_MIN = 0.8;
/** Categories that hold decisions and corrections (every write folds a singular into these). */
export const STARTUP_DECISION_CATEGORIES: readonly string[] = ['decisions', 'corrections'];
/** Smallest budget a request may ask for: room for the header, one item and the truncation note. */
export const MIN_STARTUP_BUDGET = 500;
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
