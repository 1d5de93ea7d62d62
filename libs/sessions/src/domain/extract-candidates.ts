import { eventMemoryOptions, eventText, isUserAuthored } from './event-text';
import {
  asSentence,
  CANDIDATE_LIMITS,
  capText,
  cleanCategory,
  cleanImportance,
  cleanLines,
  cleanTags,
  DEFAULT_CATEGORY,
  DEFAULT_IMPORTANCE,
  hasSubstance,
  isQuestion,
  mergeCandidates,
  type CandidateKind,
  type MemoryCandidate,
} from './memory-candidate';
import { matchSentence, phrasesIn, takePrivate } from './prompt-phrases';
import type { EventKind } from './session';

/** What the extractor needs of a captured event. */
export interface CapturedEvent {
  readonly id: number;
  readonly kind: EventKind;
  readonly payload: unknown;
}

/** An explicit note or correction is trusted more than a phrase in a prompt, so it may be short. */
const EXPLICIT_SUBSTANCE = { minChars: 6, minWords: 2 };
const CORRECTION_LEAD = /^(?:no|nope|nah|wrong|actually|correction)\b[\s,.!:;–—-]+/i;

/**
 * The rule-based extractor: candidate memories from a session's events, without a language model.
 *
 * - `note` events: the note itself (a "remember that …"/"note to self" prefix dropped); a note that
 *   states a decision or a correction becomes one.
 * - `correction` events: the corrected fact ("no, use X instead" rewritten as "Use X.").
 * - `prompt` events written by the user: the phrases `phrasesIn` finds.
 * - `tool_call` and `observation` events are the agent's doing, not something the user said to
 *   keep: never read.
 *
 * The same text from several events is one candidate with every source event; at most
 * CANDIDATE_LIMITS.maxPerRun candidates are answered.
 */
export function extractCandidates(events: readonly CapturedEvent[]): MemoryCandidate[] {
  return mergeCandidates(events.flatMap(candidatesOf), CANDIDATE_LIMITS.maxPerRun);
}

function candidatesOf(event: CapturedEvent): MemoryCandidate[] {
  switch (event.kind) {
    case 'note':
      return explicitCandidate(event, 'remember');
    case 'correction':
      return explicitCandidate(event, 'correction');
    case 'prompt':
      if (!isUserAuthored(event.payload)) return [];
      return phrasesIn(eventText(event.payload) ?? '').map((phrase) =>
        candidate(phrase.kind, phrase.content, [event.id], { private: phrase.private }),
      );
    default:
      return [];
  }
}

function explicitCandidate(event: CapturedEvent, kind: CandidateKind): MemoryCandidate[] {
  const text = eventText(event.payload);
  if (text === null) return [];
  const options = eventMemoryOptions(event.payload);
  const { text: unmarked, private: markedPrivate } = takePrivate(cleanLines(text));
  if (isQuestion(unmarked) || !hasSubstance(unmarked, EXPLICIT_SUBSTANCE)) return [];

  // A one-line note is read like a prompt sentence: "remember that X" is X, "we decided …" a decision.
  const phrase = unmarked.includes('\n') ? null : matchSentence(unmarked);
  const phraseFits = phrase !== null && (kind === 'remember' || phrase.kind === 'correction');
  const finalKind = phraseFits ? phrase.kind : kind;
  const content = phraseFits
    ? phrase.content
    : kind === 'correction'
      ? asSentence(unmarked.replace(CORRECTION_LEAD, ''))
      : unmarked;
  if (!hasSubstance(content, EXPLICIT_SUBSTANCE)) return [];
  return [
    candidate(finalKind, capText(content, CANDIDATE_LIMITS.maxContentChars), [event.id], {
      private: options.private || markedPrivate || (phrase?.private ?? false),
      category: cleanCategory(options.category),
      tags: cleanTags(options.tags),
      importance: cleanImportance(options.importance),
    }),
  ];
}

function candidate(
  kind: CandidateKind,
  content: string,
  sourceEventIds: number[],
  options: { private: boolean; category?: string; tags?: string[]; importance?: number },
): MemoryCandidate {
  return {
    kind,
    content,
    category: options.category ?? DEFAULT_CATEGORY[kind],
    importance: options.importance ?? DEFAULT_IMPORTANCE[kind],
    tags: options.tags ?? [],
    ...(options.private ? { visibility: 'private' as const } : {}),
    sourceEventIds,
  };
}
