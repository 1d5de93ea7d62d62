import { diffArrays } from 'diff';
import { normaliseContent } from './content-rules';

/** Share of words two texts must keep, in order, for one to restate the other (Dice over their LCS). */
export const RESTATEMENT_MIN_WORD_OVERLAP = 0.8;

/** Words that turn a statement around: changing one of them never restates a fact. */
const NEGATIONS = new Set([
  'no',
  'not',
  'never',
  'none',
  'nothing',
  'nobody',
  'neither',
  'nor',
  'without',
  'cannot',
  'instead',
  'except',
  'unless',
  'avoid',
  'stop',
  'stopped',
  'dont',
  'doesnt',
  'didnt',
  'isnt',
  'arent',
  'wasnt',
  'werent',
  'wont',
  'cant',
  'shouldnt',
  'mustnt',
  'nt',
]);

function words(text: string): string[] {
  return (
    normaliseContent(text)
      .toLowerCase()
      // "don't" and "dont" are one word; the apostrophe would split it.
      .replace(/['’]/g, '')
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/**
 * Whether `candidate` says what `existing` says in nearly the same words: at least
 * RESTATEMENT_MIN_WORD_OVERLAP of the words kept in the same order, and no changed word that
 * carries a negation or a number ("helm 3" is not "helm 2"; "never X" is not "X"). Embedding
 * similarity alone cannot tell a rewording from its opposite: the local model scores "deploy with
 * helm and never kubectl" against "deploy with kubectl and never helm" as close as a one-word
 * rewording, so a near duplicate is folded only when both agree.
 */
export function restates(candidate: string, existing: string): boolean {
  const a = words(candidate);
  const b = words(existing);
  if (a.length === 0 || b.length === 0) return false;
  let kept = 0;
  for (const part of diffArrays(a, b)) {
    if (!part.added && !part.removed) {
      kept += part.count ?? part.value.length;
      continue;
    }
    if (part.value.some((w) => NEGATIONS.has(w) || /\p{N}/u.test(w))) return false;
  }
  return (2 * kept) / (a.length + b.length) >= RESTATEMENT_MIN_WORD_OVERLAP;
}
