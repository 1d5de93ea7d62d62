import { createHash } from 'node:crypto';
import { normaliseContent } from './content-rules';

/**
 * Hash of everything the index is built from (content, expanded keywords, tags). The index job
 * compares it with what was last indexed, so replays and duplicate deliveries do no work twice.
 */
export function indexInputHash(input: {
  content: string;
  expandedKeywords: string;
  tags: readonly string[];
}): string {
  return createHash('sha256')
    .update(JSON.stringify([normaliseContent(input.content), input.expandedKeywords, [...input.tags].sort()]))
    .digest('hex');
}
