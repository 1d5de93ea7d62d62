import type { CandidateKind } from './memory-candidate';

/** What `check` said about a candidate's text among the user's own memories. */
export interface CheckVerdict {
  readonly action: 'ADD' | 'UPDATE' | 'NOOP';
  readonly match?: { readonly id: number };
}

export type CaptureDecision =
  | { readonly action: 'skip'; readonly reason: 'duplicate' | 'similar' }
  | { readonly action: 'supersede'; readonly memoryId: number }
  | { readonly action: 'store' };

/**
 * What happens to a candidate:
 * - NOOP (the same or nearly the same memory exists): nothing.
 * - UPDATE (close to one of the user's memories): a correction supersedes it, as `memory_correct`
 *   does, so recall answers with the correction; a note or decision is skipped, because the close
 *   memory already says it and a rule cannot tell a rephrasing from a revision.
 * - ADD: a new memory (a correction with no match is stored plain).
 */
export function decideCapture(kind: CandidateKind, verdict: CheckVerdict): CaptureDecision {
  if (verdict.action === 'NOOP') return { action: 'skip', reason: 'duplicate' };
  if (verdict.action === 'UPDATE' && verdict.match) {
    return kind === 'correction'
      ? { action: 'supersede', memoryId: verdict.match.id }
      : { action: 'skip', reason: 'similar' };
  }
  return { action: 'store' };
}
