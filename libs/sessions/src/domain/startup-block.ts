import { fitToBudget } from '@app/kernel';
import type { StartupContext, StartupMemory, StartupSections, StartupSession } from './startup-context';

/**
 * Renders the startup block and fits it into its budget. Pure and deterministic: the same sections
 * and budget always give the same bytes (no clock, no locale), so a client may cache or diff it.
 *
 * Sections keep their fixed order, and items their order inside a section (a kept item is always
 * followed by the ones ranked above it). Each section first gets a share of the budget, so long
 * important memories cannot crowd out the decisions and sessions; what a section leaves unused
 * then goes, in section order, to the sections that were cut.
 */

type SectionName = keyof StartupSections;

const SECTIONS: ReadonlyArray<{ name: SectionName; title: string; share: number }> = [
  { name: 'important', title: 'Important', share: 0.4 },
  { name: 'decisions', title: 'Decisions and corrections (newest first)', share: 0.35 },
  { name: 'sessions', title: 'Recent sessions (newest first)', share: 0.25 },
];

/** Room kept for the truncation note when something is left out. */
const NOTE_RESERVE = 120;

interface Line {
  /** The rendered line (the name lets the shared fitter measure it). */
  readonly content: string;
  readonly item: StartupMemory | StartupSession;
}

type Fitted = Pick<StartupContext, 'text' | 'sections' | 'truncated' | 'omitted'>;

export function buildStartupBlock(input: {
  readonly project: string | null;
  readonly budget: number;
  readonly sections: StartupSections;
}): Fitted {
  const { project, budget } = input;
  const header = `# Startup context: ${project ? `project ${project}` : 'all projects'}\n`;
  const lines: Line[][] = [
    input.sections.important.map((m) => ({ content: memoryLine(m, project), item: m })),
    input.sections.decisions.map((m) => ({ content: memoryLine(m, project), item: m })),
    input.sections.sessions.map((s) => ({ content: sessionLine(s, project), item: s })),
  ];
  const total = lines.reduce((n, section) => n + section.length, 0);
  if (total === 0) {
    const none = '\nNothing stored yet: no important memories, decisions or session summaries.\n';
    return {
      text: header + none,
      sections: { important: [], decisions: [], sessions: [] },
      truncated: false,
      omitted: 0,
    };
  }

  let kept = fitSections(lines, budget - header.length);
  let shown = kept.reduce((n, section) => n + section.length, 0);
  let note = '';
  if (shown < total) {
    kept = fitSections(lines, budget - header.length - NOTE_RESERVE);
    shown = kept.reduce((n, section) => n + section.length, 0);
    note = `\n[${total - shown} more not shown to stay within the ${budget}-character budget; recall for specifics]\n`;
  }
  const body = SECTIONS.map(({ title }, i) =>
    kept[i].length === 0 ? '' : headingText(title) + kept[i].map((line) => line.content).join(''),
  ).join('');
  const items = (i: number) => kept[i].map((line) => line.item);
  return {
    text: header + body + note,
    sections: {
      important: items(0) as StartupMemory[],
      decisions: items(1) as StartupMemory[],
      sessions: items(2) as StartupSession[],
    },
    truncated: shown < total,
    omitted: total - shown,
  };
}

/** The lines of each section that fit in `available` characters (section headings included). */
function fitSections(sections: readonly Line[][], available: number): Line[][] {
  const kept: Line[][] = sections.map(() => []);
  let remaining = available;
  const quotas = SECTIONS.map(({ share }) => Math.floor(available * share));
  for (const pass of ['share', 'leftover'] as const) {
    sections.forEach((lines, i) => {
      const from = kept[i].length;
      if (from === lines.length) return;
      const heading = from === 0 ? headingText(SECTIONS[i].title).length : 0;
      const allowance = (pass === 'share' ? Math.min(quotas[i], remaining) : remaining) - heading;
      if (allowance <= 0) return;
      const fitted = fitToBudget(lines.slice(from), (line) => line.content, allowance, { clipFirst: false });
      if (fitted.items.length === 0) return;
      kept[i].push(...fitted.items);
      remaining -= heading + fitted.texts.reduce((n, text) => n + text.length, 0);
    });
  }
  return kept;
}

const headingText = (title: string) => `\n## ${title}\n`;

/** `- #12 [decisions · 0.9 · alice · 2026-01-02 · replaces #9] We deploy with Helm` */
function memoryLine(memory: StartupMemory, project: string | null): string {
  const facts = [
    memory.category,
    String(memory.importance),
    memory.owner,
    memory.updatedAt.slice(0, 10),
    memory.project && memory.project !== project ? `project ${memory.project}` : '',
    memory.supersedes.length > 0 ? `replaces ${memory.supersedes.map((id) => `#${id}`).join(', ')}` : '',
  ].filter((fact) => fact !== '');
  return `- #${memory.id} [${facts.join(' · ')}] ${memory.content}\n`;
}

/** `- 2026-01-03 · alice · claude-code: Switched the build to pnpm` */
function sessionLine(session: StartupSession, project: string | null): string {
  const facts = [
    session.endedAt.slice(0, 10),
    session.owner,
    session.agent,
    session.project && session.project !== project ? `project ${session.project}` : '',
  ].filter((fact) => fact !== '');
  return `- ${facts.join(' · ')}: ${session.summary}\n`;
}
