/** Readable text for tool results; the structured data uses the REST presenters' shapes. */

interface PresentedMemory {
  readonly id: number;
  readonly content: string;
  readonly category: string;
  readonly tags: string;
  readonly importance: number;
  readonly owner: string;
  readonly updated_at: string;
  readonly project?: string | null;
  /** Recall: the superseded hit this memory stands in for. */
  readonly redirected_from?: number;
  /** Recall items carry `links`; memory_get `links_out` and `links_in`. */
  readonly links?: readonly PresentedLink[];
  readonly links_out?: readonly PresentedLink[];
  readonly links_in?: readonly PresentedLink[];
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
 * `#12 [decisions] importance 0.8 · tags deploy,ci · project atlas · alice · 2026-01-02` then the
 * content, then its links when it has any.
 */
export function memoryText(memory: PresentedMemory): string {
  const facts = [
    `#${memory.id} [${memory.category}] importance ${memory.importance}`,
    memory.redirected_from !== undefined ? `newest version of #${memory.redirected_from}` : '',
    memory.tags ? `tags ${memory.tags}` : '',
    memory.project ? `project ${memory.project}` : '',
    memory.owner,
    memory.updated_at.slice(0, 10),
  ].filter((part) => part !== '');
  return `${facts.join(' · ')}\n${memory.content}\n${linksText(memory)}\n`;
}

/** "1 memory", "3 memories". */
export function countText(count: number, singular: string, plural: string): string {
  return `${count} ${count === 1 ? singular : plural}`;
}
