/**
 * A GitHub-flavoured markdown table with padded columns, laid out the way Prettier formats
 * tables, so the generated reports pass `npm run format:check` unchanged.
 */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(3, h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    `| ${widths.map((w, i) => (cells[i] ?? '').padEnd(w)).join(' | ')} |`;
  return [line(header), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...rows.map(line)].join('\n');
}

export const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(value < 10 ? 2 : 1) : 'n/a');
export const ratio = (value: number) => (Number.isFinite(value) ? `${value.toFixed(2)}×` : 'n/a');
export const fixed = (value: number, digits = 3) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
export const count = (value: number) => value.toLocaleString('en-US');
/** ✅/❌ against a target, so a reader sees misses at a glance. */
export const verdict = (ok: boolean) => (ok ? 'met' : '**missed**');
/** p50 / p95 / p99 of a latency summary, in ms. */
export const triple = (s: { p50: number; p95: number; p99: number }) =>
  `${ms(s.p50)} / ${ms(s.p95)} / ${ms(s.p99)}`;
