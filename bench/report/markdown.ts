/** A GitHub-flavoured markdown table; cells are already formatted strings. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

export const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(value < 10 ? 2 : 1) : 'n/a');
export const ratio = (value: number) => (Number.isFinite(value) ? `${value.toFixed(2)}×` : 'n/a');
export const fixed = (value: number, digits = 3) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
export const count = (value: number) => value.toLocaleString('en-US');
/** ✅/❌ against a target, so a reader sees misses at a glance. */
export const verdict = (ok: boolean) => (ok ? 'met' : '**missed**');
