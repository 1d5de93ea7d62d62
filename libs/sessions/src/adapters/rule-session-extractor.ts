import { extractCandidates } from '../domain/extract-candidates';
import type { MemoryCandidate } from '../domain/memory-candidate';
import type { ExtractionInput, SessionExtractor } from '../ports/session-extractor.port';

/** The default extractor: the rules of `extractCandidates`, no model, deterministic. */
export class RuleSessionExtractor implements SessionExtractor {
  readonly name = 'rules';

  async extract(input: ExtractionInput): Promise<MemoryCandidate[]> {
    return extractCandidates(input.events);
  }
}
