import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildStartupBlock } from './startup-block';
import { MIN_STARTUP_BUDGET, type StartupMemory, type StartupSession } from './startup-context';

const memory = (id: number, content: string, fields: Partial<StartupMemory> = {}): StartupMemory => ({
  id,
  content,
  category: 'facts',
  importance: 0.5,
  project: null,
  owner: 'alice',
  isSensitive: false,
  updatedAt: '2030-01-02T03:04:05.000000+00:00',
  supersedes: [],
  ...fields,
});
const session = (n: number, summary: string): StartupSession => ({
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  agent: 'claude-code',
  project: 'atlas',
  owner: 'bob',
  summary,
  startedAt: '2030-01-01T00:00:00+00:00',
  endedAt: '2030-01-03T00:00:00+00:00',
});

describe('buildStartupBlock', () => {
  it('renders the sections in their fixed order with one short line per item', () => {
    const block = buildStartupBlock({
      project: 'atlas',
      budget: 4000,
      sections: {
        important: [memory(1, 'Review every change', { importance: 1 })],
        decisions: [memory(3, 'Use pnpm', { category: 'corrections', supersedes: [2], project: 'zephyr' })],
        sessions: [session(1, 'Moved the build to pnpm')],
      },
    });
    expect(block.text).toBe(
      '# Startup context: project atlas\n' +
        '\n## Important\n' +
        '- #1 [facts · 1 · alice · 2030-01-02] Review every change\n' +
        '\n## Decisions and corrections (newest first)\n' +
        '- #3 [corrections · 0.5 · alice · 2030-01-02 · project zephyr · replaces #2] Use pnpm\n' +
        '\n## Recent sessions (newest first)\n' +
        '- 2030-01-03 · bob · claude-code: Moved the build to pnpm\n',
    );
    expect(block).toMatchObject({ truncated: false, omitted: 0 });
  });

  it('gives every section a share, so long important memories leave room for the rest', () => {
    const long = 'x'.repeat(190);
    const block = buildStartupBlock({
      project: null,
      budget: 1200,
      sections: {
        important: Array.from({ length: 20 }, (_, i) => memory(i + 1, long)),
        decisions: [memory(100, 'Use pnpm')],
        sessions: [session(1, 'Moved the build to pnpm')],
      },
    });
    expect(block.sections.decisions.map((m) => m.id)).toEqual([100]);
    expect(block.sections.sessions).toHaveLength(1);
    expect(block.sections.important.length).toBeGreaterThan(0);
    expect(
      block.text.endsWith(
        `[${block.omitted} more not shown to stay within the 1200-character budget; recall for specifics]\n`,
      ),
    ).toBe(true);
  });

  it('never exceeds the budget, keeps a prefix of each section, and is deterministic', () => {
    const line = fc.string({ minLength: 1, maxLength: 200 });
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 30 }),
        fc.array(line, { maxLength: 30 }),
        fc.array(line, { maxLength: 5 }),
        fc.integer({ min: MIN_STARTUP_BUDGET, max: 8000 }),
        (important, decisions, sessions, budget) => {
          const sections = {
            important: important.map((text, i) => memory(i + 1, text)),
            decisions: decisions.map((text, i) => memory(1000 + i, text)),
            sessions: sessions.map((text, i) => session(i, text)),
          };
          const block = buildStartupBlock({ project: 'github.com/acme/atlas', budget, sections });
          expect(block.text.length).toBeLessThanOrEqual(budget);
          for (const name of ['important', 'decisions', 'sessions'] as const) {
            const kept = block.sections[name];
            expect(kept).toEqual(sections[name].slice(0, kept.length));
          }
          const shown =
            block.sections.important.length +
            block.sections.decisions.length +
            block.sections.sessions.length;
          expect(shown + block.omitted).toBe(important.length + decisions.length + sessions.length);
          expect(buildStartupBlock({ project: 'github.com/acme/atlas', budget, sections })).toEqual(block);
        },
      ),
      { numRuns: 300 },
    );
  });
});
