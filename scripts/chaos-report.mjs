#!/usr/bin/env node
// Prints the figures the chaos suites left in .chaos-results/ (or CHAOS_RESULTS_DIR) as one
// Markdown table, the form docs/reliability.md records a run in.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { resolve } from 'node:path';

const dir = resolve(process.env.CHAOS_RESULTS_DIR ?? '.chaos-results');
if (!existsSync(dir)) {
  console.error(`no chaos results in ${dir}: run npm run test:chaos first`);
  process.exit(1);
}
const results = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .map((f) => JSON.parse(readFileSync(resolve(dir, f), 'utf8')))
  .sort((a, b) => a.suite.localeCompare(b.suite));
const core = ['calls', 'faults injected', 'acknowledged writes', 'lost', 'leaks', '5xx'];
console.log(`| suite | passed | failed | ${core.join(' | ')} | other figures |`);
console.log(`|---|---:|---:|${core.map(() => '---:').join('|')}|---|`);
for (const r of results) {
  const other = Object.entries(r.figures)
    .filter(([k]) => !core.includes(k))
    .map(([k, v]) => `${k} ${v}`)
    .join('; ');
  console.log(
    `| ${r.suite} | ${r.passed} | ${r.failed} | ${core.map((k) => r.figures[k] ?? 0).join(' | ')} | ${other} |`,
  );
}
const failed = results.reduce((n, r) => n + r.failed, 0);
console.log(
  `\n${results.length} suites, ${results.reduce((n, r) => n + r.passed, 0)} checks passed, ${failed} failed`,
);
