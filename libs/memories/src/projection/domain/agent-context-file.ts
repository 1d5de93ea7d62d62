import { BLOCK_BEGIN, BLOCK_END } from './agent-context-render';

/**
 * Puts a rendered agent context into the file a team already has: only the marker block changes,
 * everything the team wrote around it stays byte for byte. Markers count only as whole lines, so
 * a marker quoted inside a line of text is never taken for one.
 */

const isBegin = (line: string) => line.startsWith(BLOCK_BEGIN) && line.trimEnd().endsWith('-->');
const isEnd = (line: string) => line.trimEnd() === BLOCK_END;

/** Line indexes of the first marker block (begin and end lines), or null when there is none. */
function blockLines(lines: readonly string[]): { begin: number; end: number } | null {
  const begin = lines.findIndex(isBegin);
  if (begin === -1) return null;
  const end = lines.findIndex((line, i) => i > begin && isEnd(line));
  if (end === -1) {
    throw new Error(
      `line ${begin + 1} opens a team-memory block that no "${BLOCK_END}" line closes; fix the file and render again`,
    );
  }
  return { begin, end };
}

/** The marker block of a rendered agent context (with its final newline). */
export function agentContextBlock(rendered: string): string {
  const lines = rendered.split('\n');
  const at = blockLines(lines);
  if (!at) throw new Error('the rendered agent context has no team-memory block');
  return `${lines.slice(at.begin, at.end + 1).join('\n')}\n`;
}

/**
 * The file after a render: the rendered file when there is none yet; else the existing file with
 * its marker block replaced by the rendered one, or the block added at its end when it has none.
 */
export function spliceAgentContext(existing: string | null, rendered: string): string {
  if (existing === null || existing.trim() === '') return rendered;
  const block = agentContextBlock(rendered);
  const lines = existing.split('\n');
  const at = blockLines(lines);
  if (!at) return `${existing.replace(/\s+$/, '')}\n\n${block}`;
  const before = lines.slice(0, at.begin).join('\n');
  const after = lines.slice(at.end + 1).join('\n');
  return `${at.begin > 0 ? `${before}\n` : ''}${block}${after}`;
}
