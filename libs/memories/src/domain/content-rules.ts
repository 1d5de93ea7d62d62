import { createHash } from 'node:crypto';
import { MemoryError, MemoryErrorCode } from './memory.errors';

/**
 * Normal form used for duplicate detection: Unicode NFKC, zero-width characters removed,
 * whitespace runs collapsed, trimmed. Case is kept: "Use X" and "use x" may differ in meaning.
 */
export function normaliseContent(content: string): string {
  return content
    .normalize('NFKC')
    .replace(/[\u200B-\u200D\u2060\uFEFF]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

export function contentHash(content: string): Buffer {
  return createHash('sha256').update(normaliseContent(content), 'utf8').digest();
}

/** Unique per memory: sensitive rows take no part in duplicate detection. */
export function sensitiveContentHash(memoryId: number): Buffer {
  return createHash('sha256').update(`sensitive-memory:${memoryId}`, 'utf8').digest();
}

export function assertContentSize(content: string, maxBytes: number): void {
  const bytes = Buffer.byteLength(content, 'utf8');
  if (bytes > maxBytes) {
    throw new MemoryError(
      MemoryErrorCode.ContentTooLarge,
      `content is ${bytes} bytes; the maximum is ${maxBytes} bytes`,
    );
  }
  if (normaliseContent(content) === '') {
    throw new MemoryError(MemoryErrorCode.InvalidInput, 'content must not be empty');
  }
}
