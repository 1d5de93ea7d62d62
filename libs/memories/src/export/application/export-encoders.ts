import { presentExportedMemory } from '../contracts/memory-export.schemas';
import type { ExportedMemory, ExportFormat } from '../domain/memory-export';

/** Turns batches of exported memories into text, one piece at a time (it never sees the whole export). */
export interface ExportEncoder {
  readonly contentType: string;
  readonly fileExtension: string;
  begin(): string;
  rows(batch: readonly ExportedMemory[]): string;
  end(): string;
}

/** A JSON array: the body POST /api/memories/import takes back. */
class JsonEncoder implements ExportEncoder {
  readonly contentType = 'application/json; charset=utf-8';
  readonly fileExtension = 'json';
  private first = true;

  begin = () => '[';
  end = () => ']\n';
  rows(batch: readonly ExportedMemory[]): string {
    if (batch.length === 0) return '';
    const body = batch.map((m) => JSON.stringify(presentExportedMemory(m))).join(',\n');
    const chunk = this.first ? `\n${body}` : `,\n${body}`;
    this.first = false;
    return chunk;
  }
}

/** One JSON object per line. */
class JsonLinesEncoder implements ExportEncoder {
  readonly contentType = 'application/x-ndjson; charset=utf-8';
  readonly fileExtension = 'jsonl';
  begin = () => '';
  end = () => '';
  rows = (batch: readonly ExportedMemory[]) =>
    batch.map((m) => `${JSON.stringify(presentExportedMemory(m))}\n`).join('');
}

/** A document for people: one section per category (rows arrive ordered by category). */
class MarkdownEncoder implements ExportEncoder {
  readonly contentType = 'text/markdown; charset=utf-8';
  readonly fileExtension = 'md';
  private category: string | undefined;
  private count = 0;

  begin = () => '# Memory export\n';
  end = () => (this.count === 0 ? '\n_No memories._\n' : '');
  rows(batch: readonly ExportedMemory[]): string {
    return batch.map((m) => this.section(m) + memoryMarkdown(m)).join('');
  }

  private section(memory: ExportedMemory): string {
    this.count += 1;
    if (memory.category === this.category) return '';
    this.category = memory.category;
    return `\n## ${memory.category}\n`;
  }
}

function memoryMarkdown(m: ExportedMemory): string {
  // Quoted, so headings or lists inside a memory cannot break the document's structure.
  const quoted = m.content
    .split('\n')
    .map((line) => (line === '' ? '>' : `> ${line}`))
    .join('\n');
  const facts = [
    m.tags.length > 0 ? `tags: ${m.tags.join(', ')}` : null,
    `importance: ${m.importance}`,
    m.project === null ? null : `project: ${m.project}`,
    `visibility: ${m.visibility}`,
    m.isSensitive ? 'sensitive: the secret is redacted' : null,
    `created: ${m.createdAt}; updated: ${m.updatedAt}`,
    m.expiresAt === null ? null : `expires: ${m.expiresAt}`,
    m.deletedAt === null ? null : `deleted: ${m.deletedAt}`,
    m.links.length > 0 ? `links: ${m.links.map((l) => `${l.linkType} #${l.id}`).join(', ')}` : null,
    m.shares.length > 0
      ? `shared with: ${m.shares.map((s) => `${s.username} (${s.permission})`).join(', ')}`
      : null,
    m.versions.length > 0 ? `earlier versions: ${m.versions.length}` : null,
  ].filter((f): f is string => f !== null);
  return `\n### Memory #${m.id}\n\n${quoted}\n\n${facts.map((f) => `- ${f}`).join('\n')}\n`;
}

export function exportEncoder(format: ExportFormat): ExportEncoder {
  switch (format) {
    case 'json':
      return new JsonEncoder();
    case 'jsonl':
      return new JsonLinesEncoder();
    case 'markdown':
      return new MarkdownEncoder();
  }
}
