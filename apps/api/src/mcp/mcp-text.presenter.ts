import { dataFrame, neutralizeRecalledLine, quotedMemory } from '@app/kernel';

/**
 * Readable text for tool results; the structured data uses the REST presenters' shapes. Stored
 * text is rendered in the data frame of `libs/kernel` (recalled-text.ts): quoted, with its author
 * and date, never as instructions.
 */

interface PresentedMemory {
  readonly id: number;
  readonly content: string;
  readonly category: string;
  readonly tags: string;
  readonly importance: number;
  readonly owner: string;
  readonly updated_at: string;
  readonly project?: string | null;
  /** memory_get: the expanded keywords. */
  readonly expanded_keywords?: string | null;
  /** Recall: the superseded hit this memory stands in for. */
  readonly redirected_from?: number;
  /** Recall items carry `links`; memory_get `links_out` and `links_in`. */
  readonly links?: readonly PresentedLink[];
  readonly links_out?: readonly PresentedLink[];
  readonly links_in?: readonly PresentedLink[];
  /** Its links to code (`path:line@commit`), and what the code says of it now. */
  readonly anchors?: readonly { readonly label: string; readonly state: string }[];
  readonly code_state?: 'current' | 'stale' | 'orphaned';
}

const CODE_STATE_FACT = {
  current: '',
  stale: 'STALE: its code changed since (read the code, then memory_verify)',
  orphaned: 'ORPHANED: a file it cites is gone (memory_verify or correct it)',
} as const;

/** `code: src/pay.ts:10-42@abc1234 (stale)`, or nothing for a memory without anchors. */
function anchorsText(memory: PresentedMemory): string {
  if (!memory.anchors || memory.anchors.length === 0) return '';
  const parts = memory.anchors.map((a) =>
    neutralizeRecalledLine(a.state === 'current' ? a.label : `${a.label} (${a.state})`),
  );
  return `code: ${parts.join(', ')}\n`;
}

/** The memory at the other end, the link's type and which way it points. */
interface PresentedLink {
  readonly id: number;
  readonly type: string;
  readonly dir: 'out' | 'in';
}

/** `links: supersedes #3, #12 see-also this`, or nothing when the memory has no links. */
function linksText(memory: PresentedMemory): string {
  const links = [...(memory.links ?? []), ...(memory.links_out ?? []), ...(memory.links_in ?? [])];
  if (links.length === 0) return '';
  const parts = links.map((l) => (l.dir === 'out' ? `${l.type} #${l.id}` : `#${l.id} ${l.type} this`));
  return `links: ${parts.join(', ')}\n`;
}

/**
 * One memory in the frame: `#12 · decisions · by alice · 2026-01-02 · importance 0.8 · tags
 * deploy,ci · project atlas`, its content quoted line by line, then its links (and keywords).
 */
export function memoryText(memory: PresentedMemory): string {
  const keywords = memory.expanded_keywords
    ? `keywords: ${neutralizeRecalledLine(memory.expanded_keywords)}\n`
    : '';
  return quotedMemory({
    id: memory.id,
    category: memory.category,
    author: memory.owner,
    date: memory.updated_at,
    facts: [
      `importance ${memory.importance}`,
      memory.redirected_from !== undefined ? `newest version of #${memory.redirected_from}` : '',
      memory.tags ? `tags ${memory.tags}` : '',
      memory.project ? `project ${memory.project}` : '',
      memory.code_state ? CODE_STATE_FACT[memory.code_state] : '',
    ],
    text: memory.content,
    after: anchorsText(memory) + linksText(memory) + keywords,
  });
}

/** Rendered memories inside the data frame; nothing when there are none. */
export function memoriesText(texts: readonly string[]): string {
  return dataFrame(texts.join(''));
}

/** "1 memory", "3 memories". */
export function countText(count: number, singular: string, plural: string): string {
  return `${count} ${count === 1 ? singular : plural}`;
}
