import type { CapturedEvent } from '../domain/extract-candidates';
import type { MemoryCandidate } from '../domain/memory-candidate';

export interface ExtractionInput {
  readonly session: { readonly id: string; readonly agent: string; readonly project: string | null };
  /** Oldest first; payloads already secret-redacted. */
  readonly events: readonly CapturedEvent[];
}

/**
 * Turns a session's events into candidate memories. `rules` (the default) needs no model; `llm`
 * asks an OpenAI-compatible endpoint and falls back to the rules when it fails. Either way the
 * extraction job decides, through `check`, what becomes a memory.
 */
export interface SessionExtractor {
  /** For logs: which extractor produced the candidates. */
  readonly name: string;
  extract(input: ExtractionInput): Promise<MemoryCandidate[]>;
}

export const SESSION_EXTRACTOR = Symbol('SESSION_EXTRACTOR');
