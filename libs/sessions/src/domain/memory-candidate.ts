/**
 * What session capture proposes to remember: an explicit note, a correction the user made, or a
 * decision. Candidates are plain data; the extraction job decides (through `check`) whether each
 * becomes a memory.
 */

export const CANDIDATE_KINDS = ['remember', 'correction', 'decision'] as const;
export type CandidateKind = (typeof CANDIDATE_KINDS)[number];

export interface MemoryCandidate {
  readonly kind: CandidateKind;
  /** Self-contained text, already trimmed and capped. */
  readonly content: string;
  readonly category: string;
  readonly importance: number;
  /** Tags the event asked for; the job adds `session-capture` and `session:<id>`. */
  readonly tags: readonly string[];
  /** `private` when the note asked for it; absent: the user's default visibility. */
  readonly visibility?: 'private';
  /** The events it came from (several when the same text was captured more than once). */
  readonly sourceEventIds: readonly number[];
}

export const CANDIDATE_LIMITS = {
  /** A phrase found in a prompt longer than this is a pasted blob, not a note: skipped. */
  maxPhraseChars: 500,
  /** Explicit notes and corrections are cut (at a word) to this length. */
  maxContentChars: 2000,
  /** At most this many candidates per extraction run; the rest are dropped (a flood is noise). */
  maxPerRun: 50,
} as const;

export const DEFAULT_CATEGORY: Readonly<Record<CandidateKind, string>> = {
  remember: 'notes',
  correction: 'corrections',
  decision: 'decisions',
};

export const DEFAULT_IMPORTANCE: Readonly<Record<CandidateKind, number>> = {
  remember: 0.6,
  correction: 0.7,
  decision: 0.7,
};

/** Same rule as the memories' category slug. */
export const CATEGORY_PATTERN = /^[a-z0-9][a-z0-9_.-]{0,63}$/;
export const MAX_CANDIDATE_TAGS = 10;
export const MAX_TAG_LENGTH = 64;

const REDACTED = /\[REDACTED:[a-z0-9_-]+\]/gi;

/** NFKC, zero-width characters removed, whitespace collapsed, trimmed. */
export function cleanText(text: string): string {
  return text
    .normalize('NFKC')
    .replace(/[\u200B-\u200D\u2060\uFEFF]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Like cleanText, but line breaks survive (an explicit note may hold a command or a list). */
export function cleanLines(text: string): string {
  return text
    .normalize('NFKC')
    .replace(/[\u200B-\u200D\u2060\uFEFF]/g, '')
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => line.replace(/[^\S\n]+/g, ' ').trimEnd())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Cut at the last word boundary before `max` characters, marked with an ellipsis. */
export function capText(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, '')}…`;
}

/** First letter upper-cased and a full stop at the end unless it already has one. */
export function asSentence(text: string): string {
  const trimmed = text.trim().replace(/[\s,;:–—-]+$/, '');
  if (trimmed === '') return trimmed;
  const first = trimmed[0].toUpperCase() + trimmed.slice(1);
  return /[.!…]["')\]`]*$/.test(first) ? first.replace(/!+$/, '.') : `${first}.`;
}

export function isQuestion(text: string): boolean {
  return /\?\s*["')\]]*\s*$/.test(text.trim());
}

/**
 * Enough to be worth a memory: at least `minChars` characters and `minWords` words once redaction
 * placeholders are left out (a note that is only `[REDACTED:…]` says nothing).
 */
export function hasSubstance(text: string, rule: { minChars: number; minWords: number }): boolean {
  const words = text.replace(REDACTED, ' ').match(/[\p{L}\p{N}][\p{L}\p{N}'._/-]*/gu) ?? [];
  return words.join(' ').length >= rule.minChars && words.length >= rule.minWords;
}

/** Candidates whose text differs only in case, spacing or final punctuation are one. */
export function candidateKey(content: string): string {
  return cleanText(content)
    .toLowerCase()
    .replace(/[.!…\s]+$/, '');
}

/** Same text (by `candidateKey`) merged into the first, source events joined; at most `max` kept. */
export function mergeCandidates(candidates: readonly MemoryCandidate[], max: number): MemoryCandidate[] {
  const byKey = new Map<string, MemoryCandidate>();
  for (const candidate of candidates) {
    const key = candidateKey(candidate.content);
    const seen = byKey.get(key);
    if (!seen) {
      if (byKey.size < max) byKey.set(key, candidate);
      continue;
    }
    const ids = [...new Set([...seen.sourceEventIds, ...candidate.sourceEventIds])];
    byKey.set(key, { ...seen, sourceEventIds: ids });
  }
  return [...byKey.values()];
}

/** Tags as an event may send them (a list or a comma-separated string), cleaned; invalid ones dropped. */
export function cleanTags(value: unknown): string[] {
  const raw = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : [];
  const tags = raw
    .filter((tag): tag is string => typeof tag === 'string')
    .map((tag) => cleanText(tag))
    .filter((tag) => tag !== '' && tag.length <= MAX_TAG_LENGTH && !tag.includes(','));
  return [...new Set(tags)].slice(0, MAX_CANDIDATE_TAGS);
}

export function cleanCategory(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const category = value.trim().toLowerCase();
  return CATEGORY_PATTERN.test(category) ? category : undefined;
}

export function cleanImportance(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 1 ? value : undefined;
}
