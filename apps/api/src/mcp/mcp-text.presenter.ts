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
}

/** `#12 [decisions] importance 0.8 · tags deploy,ci · project atlas · alice · 2026-01-02` then the content. */
export function memoryText(memory: PresentedMemory): string {
  const facts = [
    `#${memory.id} [${memory.category}] importance ${memory.importance}`,
    memory.tags ? `tags ${memory.tags}` : '',
    memory.project ? `project ${memory.project}` : '',
    memory.owner,
    memory.updated_at.slice(0, 10),
  ].filter((part) => part !== '');
  return `${facts.join(' · ')}\n${memory.content}\n\n`;
}

/** "1 memory", "3 memories". */
export function countText(count: number, singular: string, plural: string): string {
  return `${count} ${count === 1 ? singular : plural}`;
}
