import { createHash } from 'node:crypto';

/**
 * The text a memory is embedded from: its (already redacted) content, expanded keywords and tags.
 * Tags are sorted so reordering them does not count as a change worth re-embedding.
 */
export function embeddingInput(memory: {
  readonly content: string;
  readonly expandedKeywords: string;
  readonly tags: readonly string[];
}): string {
  return [memory.content, memory.expandedKeywords, [...memory.tags].sort().join(' ')]
    .map((part) => part.trim())
    .filter((part) => part.length > 0)
    .join('\n');
}

/** sha256 of the embedded text, stored with the vector: unchanged input is never embedded twice. */
export function embeddingInputHash(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
