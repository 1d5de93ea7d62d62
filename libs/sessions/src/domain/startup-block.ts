import {
  DATA_FRAME_CHARS,
  dataFrame,
  estimateTokens,
  fitToBudget,
  quotedEntry,
  quotedMemory,
} from '@app/kernel';
import type {
  StartupBudget,
  StartupContext,
  StartupLeftOut,
  StartupMemory,
  StartupSections,
  StartupSession,
} from './startup-context';

/**
 * Renders the startup block and fits it into its budget: characters and estimated tokens
 * (`estimateTokens`, libs/kernel), both at once. Pure and deterministic: the same sections and
 * budget always give the same bytes (no clock, no locale), so a client may cache or diff it.
 *
 * Sections keep their fixed order, and items their order inside a section (a kept item is always
 * followed by the ones ranked above it). Pinned memories are fitted first, from the whole budget,
 * so nothing below pushes them out; the requested ones next, from at most half of what is left;
 * then the important memories, decisions and sessions each get a share of the rest, so long
 * important memories cannot crowd out the decisions and sessions; what a section leaves unused
 * then goes, in section order, to the sections that were cut. What was left out is named at the end
 * of the block (counts per section, memory ids) and in `leftOut`.
 *
 * Stored text is data: the sections sit inside the data frame of `libs/kernel` (recalled-text.ts),
 * each memory and session summary quoted with its author and date, never as instructions.
 */

type SectionName = keyof StartupSections;

interface SectionSpec {
  readonly name: SectionName;
  readonly title: string;
  /** `first`: fitted before the shared sections, from this part of what is left. */
  readonly first?: number;
  /** Otherwise: its share of what the first sections leave. */
  readonly share?: number;
  /** How the truncation note counts its items. */
  readonly noun: string;
}

const SECTIONS: readonly SectionSpec[] = [
  { name: 'pinned', title: 'Pinned', first: 1, noun: 'pinned' },
  { name: 'requested', title: 'Asked to remember (newest first)', first: 0.5, noun: 'requested' },
  { name: 'important', title: 'Important', share: 0.4, noun: 'important' },
  { name: 'decisions', title: 'Decisions and corrections (newest first)', share: 0.35, noun: 'decisions' },
  // No share of its own: what the others leave. Each says which code changed (memory_verify).
  {
    name: 'outdated',
    title: 'May be outdated (their code changed since; verify before relying on them)',
    noun: 'outdated',
  },
  { name: 'sessions', title: 'Recent sessions (newest first)', share: 0.25, noun: 'sessions' },
];

/** Memory ids the truncation note names at most (all of them are in `leftOut`). */
const NOTE_IDS = 12;
/** The frame's own cost (its open and close lines); the one character inside costs at most a token. */
const FRAME_TOKENS = estimateTokens(dataFrame(' '));

interface Line {
  /** The rendered line (the name lets the shared fitter measure it). */
  readonly content: string;
  readonly tokens: number;
  readonly item: StartupMemory | StartupSession;
}

type Fitted = Pick<
  StartupContext,
  'text' | 'estimatedTokens' | 'sections' | 'truncated' | 'omitted' | 'leftOut'
>;

const cost = (text: string): StartupBudget => ({ chars: text.length, tokens: estimateTokens(text) });
const minus = (a: StartupBudget, b: StartupBudget): StartupBudget => ({
  chars: a.chars - b.chars,
  tokens: a.tokens - b.tokens,
});
const covers = (room: StartupBudget, need: StartupBudget) =>
  need.chars <= room.chars && need.tokens <= room.tokens;

export function buildStartupBlock(input: {
  readonly project: string | null;
  readonly budget: StartupBudget;
  readonly sections: StartupSections;
}): Fitted {
  const { project, budget } = input;
  const header = `# Startup context: ${project ? `project ${project}` : 'all projects'}\n`;
  const line = (content: string, item: StartupMemory | StartupSession): Line => ({
    content,
    tokens: estimateTokens(content),
    item,
  });
  const lines: Line[][] = SECTIONS.map(({ name }) =>
    name === 'sessions'
      ? input.sections.sessions.map((s) => line(sessionLine(s, project), s))
      : input.sections[name].map((m) => line(memoryLine(m, project, name === 'pinned'), m)),
  );
  const total = lines.reduce((n, section) => n + section.length, 0);
  if (total === 0) {
    const none = '\nNothing stored yet: no important memories, decisions or session summaries.\n';
    return {
      text: header + none,
      estimatedTokens: estimateTokens(header + none),
      sections: emptySections(),
      truncated: false,
      omitted: 0,
      leftOut: leftOutOf(lines, lines),
    };
  }

  const available = minus(budget, cost(header));
  const room = minus(available, { chars: DATA_FRAME_CHARS, tokens: FRAME_TOKENS });
  // The note about what was left out takes room too: fit again with that room kept, until it fits.
  let reserve: StartupBudget = { chars: 0, tokens: 0 };
  let kept = fitSections(lines, room);
  let note = '';
  // Each round keeps more room; the note grows with what is left out, up to NOTE_IDS ids: it settles.
  for (let round = 0; round < 8 && shownOf(kept) < total; round++) {
    note = leftOutNote(lines, kept, budget);
    const need = cost(note);
    if (covers(reserve, need)) break;
    reserve = {
      chars: Math.max(reserve.chars, need.chars + 16),
      tokens: Math.max(reserve.tokens, need.tokens + 4),
    };
    kept = fitSections(lines, minus(room, reserve));
  }
  note = shownOf(kept) < total ? leftOutNote(lines, kept, budget) : '';
  const body = SECTIONS.map(({ title }, i) =>
    kept[i].length === 0 ? '' : headingText(title) + kept[i].map((l) => l.content).join(''),
  ).join('');
  const text = header + dataFrame(body) + note;
  const shown = shownOf(kept);
  const items = (name: SectionName) => kept[SECTIONS.findIndex((s) => s.name === name)].map((l) => l.item);
  return {
    text,
    estimatedTokens: estimateTokens(text),
    sections: {
      pinned: items('pinned') as StartupMemory[],
      requested: items('requested') as StartupMemory[],
      important: items('important') as StartupMemory[],
      decisions: items('decisions') as StartupMemory[],
      outdated: items('outdated') as StartupMemory[],
      sessions: items('sessions') as StartupSession[],
    },
    truncated: shown < total,
    omitted: total - shown,
    leftOut: leftOutOf(lines, kept),
  };
}

const shownOf = (kept: readonly Line[][]) => kept.reduce((n, section) => n + section.length, 0);

function emptySections(): StartupSections {
  return { pinned: [], requested: [], important: [], decisions: [], outdated: [], sessions: [] };
}

/** The items of each section that were not kept (each section keeps a prefix). */
function leftOutOf(lines: readonly Line[][], kept: readonly Line[][]): StartupLeftOut {
  const rest = (name: SectionName) => {
    const i = SECTIONS.findIndex((s) => s.name === name);
    return lines[i].slice(kept[i].length).map((l) => l.item);
  };
  const ids = (name: Exclude<SectionName, 'sessions'>) => (rest(name) as StartupMemory[]).map((m) => m.id);
  return {
    pinned: ids('pinned'),
    requested: ids('requested'),
    important: ids('important'),
    decisions: ids('decisions'),
    outdated: ids('outdated'),
    sessions: (rest('sessions') as StartupSession[]).map((s) => s.id),
  };
}

/**
 * `[3 more not shown to stay within the budget (4000 characters, 1000 tokens): 1 requested, 2
 * important (#12, #15, #19); recall or memory_get for specifics]`
 */
function leftOutNote(lines: readonly Line[][], kept: readonly Line[][], budget: StartupBudget): string {
  const counts: string[] = [];
  const ids: number[] = [];
  SECTIONS.forEach(({ name, noun }, i) => {
    const rest = lines[i].slice(kept[i].length);
    if (rest.length === 0) return;
    counts.push(`${rest.length} ${noun}`);
    if (name !== 'sessions') ids.push(...rest.map((l) => (l.item as StartupMemory).id));
  });
  const omitted = lines.reduce((n, section, i) => n + section.length - kept[i].length, 0);
  const named = ids.slice(0, NOTE_IDS).map((id) => `#${id}`);
  if (ids.length > NOTE_IDS) named.push('…');
  const which = named.length > 0 ? ` (${named.join(', ')})` : '';
  return (
    `\n[${omitted} more not shown to stay within the budget (${budget.chars} characters, ${budget.tokens} tokens): ` +
    `${counts.join(', ')}${which}; recall or memory_get for specifics]\n`
  );
}

/** The lines of each section that fit in `available` (section headings included). */
function fitSections(sections: readonly Line[][], available: StartupBudget): Line[][] {
  const kept: Line[][] = sections.map(() => []);
  let remaining = available;
  const take = (i: number, allowance: StartupBudget) => {
    const lines = sections[i];
    const from = kept[i].length;
    if (from === lines.length) return;
    const heading = from === 0 ? cost(headingText(SECTIONS[i].title)) : { chars: 0, tokens: 0 };
    const room = minus(allowance, heading);
    if (room.chars <= 0 || room.tokens <= 0) return;
    const fitted = fitToBudget(lines.slice(from), (l) => l.content, room.chars, {
      clipFirst: false,
      alsoWithin: { measure: (l) => l.tokens, budget: room.tokens },
    });
    if (fitted.items.length === 0) return;
    kept[i].push(...fitted.items);
    const used = fitted.items.reduce(
      (n, l) => ({ chars: n.chars + l.content.length, tokens: n.tokens + l.tokens }),
      heading,
    );
    remaining = minus(remaining, used);
  };
  const part = (share: number): StartupBudget => ({
    chars: Math.floor(remaining.chars * share),
    tokens: Math.floor(remaining.tokens * share),
  });
  SECTIONS.forEach(({ first }, i) => {
    if (first !== undefined) take(i, part(first));
  });
  const shared = remaining;
  SECTIONS.forEach(({ share }, i) => {
    if (share === undefined) return;
    const quota = { chars: Math.floor(shared.chars * share), tokens: Math.floor(shared.tokens * share) };
    take(i, {
      chars: Math.min(quota.chars, remaining.chars),
      tokens: Math.min(quota.tokens, remaining.tokens),
    });
  });
  SECTIONS.forEach((_, i) => take(i, remaining));
  return kept;
}

const headingText = (title: string) => `\n## ${title}\n`;

/**
 * `#12 · decisions · by alice · 2026-01-02 · importance 0.9 · replaces #9` then `> We deploy with Helm`;
 * in the pinned section the pin comes first among the facts (`pinned for the team` / `pinned by you`).
 */
function memoryLine(memory: StartupMemory, project: string | null, pinned: boolean): string {
  return quotedMemory({
    id: memory.id,
    category: memory.category,
    author: memory.owner,
    date: memory.updatedAt,
    facts: [
      pinned && memory.pin ? (memory.pin === 'team' ? 'pinned for the team' : 'pinned by you') : '',
      `importance ${memory.importance}`,
      memory.project && memory.project !== project ? `project ${memory.project}` : '',
      memory.supersedes.length > 0 ? `replaces ${memory.supersedes.map((id) => `#${id}`).join(', ')}` : '',
      memory.code ? `${CODE_FACT[memory.code.state]}: ${memory.code.anchors.join(', ')}` : '',
    ],
    text: memory.content,
  });
}

const CODE_FACT = { current: 'code', stale: 'code changed since', orphaned: 'code gone' } as const;

/** `session · claude-code · by alice · 2026-01-03` then `> Switched the build to pnpm` */
function sessionLine(session: StartupSession, project: string | null): string {
  return quotedEntry({
    label: 'session',
    facts: [
      session.agent,
      `by ${session.owner}`,
      session.endedAt.slice(0, 10),
      session.project && session.project !== project ? `project ${session.project}` : '',
    ],
    text: session.summary,
  });
}
