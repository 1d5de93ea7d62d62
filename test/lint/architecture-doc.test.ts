import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JOB_NAMES } from '@app/jobs';
import { LIB_DEPENDENCIES } from '../../eslint/architecture-plugin.mjs';

const root = resolve(__dirname, '../..');
const FOUNDATION = new Set(['config', 'persistence', 'observability', 'kernel', 'migrations']);

/** The job names in the first column of the jobs table of docs/architecture.md. */
function documentedJobs(): string[] {
  const doc = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
  const table = doc.slice(doc.indexOf('### The jobs'), doc.indexOf('### Where does X go?'));
  return [...table.matchAll(/^\| `([a-z.-]+)` +\|/gmu)].map((m) => m[1]);
}

/** The lib diagram of docs/architecture.md: `libs/<name> ──► a, b` per line, by lib. */
function documentedDependencies(): Map<string, string[]> {
  const doc = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
  const found = new Map<string, string[]>();
  for (const match of doc.matchAll(/^\s*[├└]── libs\/([a-z]+)(?: ─*► (.+))?$/gmu))
    found.set(match[1], match[2] ? match[2].split(',').map((d) => d.trim()) : []);
  return found;
}

describe('docs/architecture.md', () => {
  it('draws every lib with exactly the libs the lint rule lets it import (the foundation aside)', () => {
    const documented = documentedDependencies();
    const allowed = Object.entries(LIB_DEPENDENCIES)
      .filter(([lib]) => !FOUNDATION.has(lib))
      .map(([lib, deps]) => [lib, deps.filter((d) => !FOUNDATION.has(d)).sort()] as const);
    expect(new Map([...documented].map(([lib, deps]) => [lib, [...deps].sort()]))).toEqual(new Map(allowed));
  });

  it('lists every job the definitions name, once, and no other', () => {
    expect(documentedJobs().sort()).toEqual([...JOB_NAMES].sort());
  });
});
