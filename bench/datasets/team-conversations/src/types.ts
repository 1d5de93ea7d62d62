/** Building blocks of the team-conversations generator: arcs of turns and the questions about them. */

export type QuestionType = 'single-hop' | 'multi-hop' | 'temporal' | 'correction' | 'person';

/** The session a part of an arc lands in: its date, and relative dates as people say them. */
export interface SessionDay {
  readonly date: Date;
  /** "yesterday", "on Tuesday", "last Thursday" for an event `days` working days before. */
  ago(days: number): string;
  /** "tomorrow", "on Friday", "next Wednesday" for an event `days` after. */
  ahead(days: number): string;
  /** "Tuesday 12 March" for the day `offset` days after the session (negative: working days before). */
  dayName(offset: number): string;
}

/** One turn: who speaks and what they say (a function when the words depend on the date). */
export interface Line {
  readonly who: string;
  readonly say: string | ((day: SessionDay) => string);
}

export interface ArcQuestion {
  readonly type: QuestionType;
  /** `days[i]` is the session of part i. */
  readonly text: string | ((days: readonly SessionDay[]) => string);
  /** [part, line, score]: score 2 carries the answer, 1 is evidence it needs (context, old value). */
  readonly evidence: readonly (readonly [number, number, 1 | 2])[];
}

/** A story told over one or more sessions: each part is a run of consecutive turns. */
export interface Arc {
  readonly parts: readonly (readonly Line[])[];
  readonly questions: readonly ArcQuestion[];
}

export type GlobalPool = 'customer' | 'feature' | 'bug' | 'hire' | 'city' | 'vendor';

/** What an arc template draws on: the team's people and services, and names unique corpus-wide. */
export interface ArcContext {
  /** The team's people, shuffled for this arc. */
  readonly p: readonly string[];
  /** The team's services, shuffled for this arc. */
  readonly s: readonly string[];
  /** A name from a corpus-wide pool, never handed out twice, so questions stay unambiguous. */
  take(pool: GlobalPool): string;
  pick<T>(items: readonly T[]): T;
  int(min: number, max: number): number;
}

export type ArcTemplate = (c: ArcContext) => Arc;
