import { createHash } from 'node:crypto';

/**
 * What the `memory.index` job builds a memory's index from, shared by the producer (the memory
 * write path) and the consumer (the embeddings lib): one definition, one idempotency key.
 */
export interface IndexSource {
  readonly content: string;
  readonly expandedKeywords: string;
  readonly tags: readonly string[];
}

/**
 * The text a memory is embedded from: its (already redacted) content, expanded keywords and tags.
 * Tags are sorted so reordering them does not count as a change worth re-embedding.
 */
export function indexInput(memory: IndexSource): string {
  return [memory.content, memory.expandedKeywords, [...memory.tags].sort().join(' ')]
    .map((part) => part.trim())
    .filter((part) => part.length > 0)
    .join('\n');
}

/**
 * sha256 of the index input text. The job compares it with what was last indexed, and each
 * stored vector keeps it, so replays, duplicate deliveries and unchanged edits do no work twice.
 */
export function indexInputDigest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** Hex digest of a memory's index input: the `memory.index` job's idempotency key. */
export function indexInputHash(memory: IndexSource): string {
  return indexInputDigest(indexInput(memory)).toString('hex');
}
