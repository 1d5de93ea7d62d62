import { LINKED_ARCS } from './arcs-links';
import { PEOPLE_ARCS } from './arcs-people';
import { SYSTEM_ARCS } from './arcs-systems';
import { SYSTEM_ARCS_MORE } from './arcs-systems-more';
import { addDays, seededRandom, sessionDates, sessionDay } from './calendar';
import { GLOBAL_POOLS, PEOPLE, SERVICES, TEAMS } from './cast';
import { FILLERS } from './fillers';
import type { Arc, ArcContext, GlobalPool, QuestionType, SessionDay } from './types';

export interface CorpusRow {
  readonly _id: string;
  readonly title: '';
  readonly text: string;
  readonly metadata: {
    readonly conversation: string;
    readonly session: number;
    readonly turn: number;
    readonly date: string;
    readonly speaker: string;
  };
}

export interface QueryRow {
  readonly _id: string;
  readonly text: string;
  readonly metadata: { readonly type: QuestionType; readonly split: 'dev' | 'test' };
}

export interface Dataset {
  readonly corpus: readonly CorpusRow[];
  readonly queries: readonly QueryRow[];
  /** [query id, corpus id, score] */
  readonly qrels: readonly (readonly [string, string, 1 | 2])[];
}

export const SEED = 20_241_125;
const SESSIONS = 8;
const PEOPLE_PER_TEAM = 5;
const SERVICES_PER_TEAM = 5;
const ARCS_PER_TEAM = 20;
const DEV_SHARE = 0.4;
const FIRST_MONDAY = new Date(Date.UTC(2024, 0, 8));

/** The whole set from one seed: the same files on every machine and every run. */
export function buildDataset(seed = SEED): Dataset {
  const random = seededRandom(seed);
  const int = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const shuffle = <T>(items: readonly T[]): T[] => {
    const copy = [...items];
    for (let i = copy.length - 1; i > 0; i -= 1) {
      const j = Math.floor(random() * (i + 1));
      [copy[i], copy[j]] = [copy[j], copy[i]];
    }
    return copy;
  };
  const pools = new Map(Object.entries(GLOBAL_POOLS).map(([k, v]) => [k, shuffle(v)]));
  const take = (pool: GlobalPool): string => {
    const name = pools.get(pool)?.pop();
    if (name === undefined) throw new Error(`pool "${pool}" ran out: add names to cast.ts`);
    return name;
  };
  const templates = [...SYSTEM_ARCS, ...SYSTEM_ARCS_MORE, ...PEOPLE_ARCS, ...LINKED_ARCS];
  // Templates are dealt round-robin over teams, so each is used about equally often overall.
  let deck: number[] = [];
  const deal = (used: Set<number>): number => {
    if (deck.every((t) => used.has(t))) deck = [...deck, ...shuffle(templates.map((_, i) => i))];
    const index = deck.findIndex((t) => !used.has(t));
    return deck.splice(index, 1)[0];
  };
  const people = shuffle(PEOPLE);
  const services = shuffle(SERVICES);
  const corpus: CorpusRow[] = [];
  const queries: { text: string; type: QuestionType; evidence: [string, 1 | 2][] }[] = [];
  const seenTexts = new Set<string>();

  TEAMS.forEach((team, t) => {
    const teamPeople = people.slice(t * PEOPLE_PER_TEAM, (t + 1) * PEOPLE_PER_TEAM);
    const teamServices = services.slice(t * SERVICES_PER_TEAM, (t + 1) * SERVICES_PER_TEAM);
    const dates = sessionDates(addDays(FIRST_MONDAY, t * 28), SESSIONS, () => int(1, 4));
    const days = dates.map(sessionDay);
    const context = (): ArcContext => ({
      p: shuffle(teamPeople),
      s: shuffle(teamServices),
      take,
      pick,
      int,
    });
    const used = new Set<number>();
    const arcs: { arc: Arc; sessions: number[] }[] = [];
    const load = new Array<number>(SESSIONS).fill(0);
    for (let a = 0; a < ARCS_PER_TEAM; a += 1) {
      const template = deal(used);
      used.add(template);
      const arc = templates[template](context());
      arcs.push({ arc, sessions: placeParts(arc.parts.length, load, random) });
    }
    // Per session: the arc parts that land in it (kept whole) and a few fillers, shuffled.
    for (let session = 0; session < SESSIONS; session += 1) {
      type Block = { lines: { who: string; text: string }[]; arc?: number; part?: number };
      const blocks: Block[] = [];
      arcs.forEach(({ arc, sessions }, a) =>
        sessions.forEach((s, part) => {
          if (s !== session) return;
          const lines = arc.parts[part].map((l) => ({
            who: l.who,
            text: typeof l.say === 'string' ? l.say : l.say(days[session]),
          }));
          blocks.push({ lines, arc: a, part });
        }),
      );
      for (let f = int(6, 8); f > 0; f -= 1) {
        const who = pick(teamPeople);
        const other = pick(teamPeople.filter((n) => n !== who));
        const text = pick(FILLERS).replace('{p}', other).replace('{s}', pick(teamServices));
        if (seenTexts.has(`${who}: ${text}`)) continue;
        seenTexts.add(`${who}: ${text}`);
        blocks.push({ lines: [{ who, text }] });
      }
      let turn = 0;
      for (const block of shuffle(blocks)) {
        const ids = block.lines.map((line) => {
          turn += 1;
          const id = `${team}-s${session + 1}-t${String(turn).padStart(2, '0')}`;
          const text = `${line.who}: ${line.text}`;
          if (block.arc !== undefined && seenTexts.has(text)) throw new Error(`duplicate turn "${text}"`);
          seenTexts.add(text);
          corpus.push({
            _id: id,
            title: '',
            text,
            metadata: {
              conversation: team,
              session: session + 1,
              turn,
              date: dates[session].toISOString(),
              speaker: line.who,
            },
          });
          return id;
        });
        if (block.arc !== undefined && block.part !== undefined)
          partIds.set(`${block.arc}/${block.part}`, ids);
      }
    }
    arcs.forEach(({ arc, sessions }, a) => {
      const arcDays: SessionDay[] = sessions.map((s) => days[s]);
      for (const q of arc.questions) {
        queries.push({
          text: typeof q.text === 'string' ? q.text : q.text(arcDays),
          type: q.type,
          evidence: q.evidence.map(([part, line, score]) => [partIds.get(`${a}/${part}`)![line], score]),
        });
      }
    });
    partIds.clear();
  });

  const texts = new Set(queries.map((q) => q.text));
  if (texts.size !== queries.length)
    throw new Error(
      `two questions have the same text: ${queries
        .map((q) => q.text)
        .filter((x, i, all) => all.indexOf(x) !== i)
        .join('; ')}`,
    );
  const ids = queries.map((_, i) => `q${String(i + 1).padStart(3, '0')}`);
  const split = new Map<string, 'dev' | 'test'>();
  for (const type of new Set(queries.map((q) => q.type))) {
    const ofType = shuffle(ids.filter((_, i) => queries[i].type === type));
    const dev = Math.round(ofType.length * DEV_SHARE);
    ofType.forEach((id, i) => split.set(id, i < dev ? 'dev' : 'test'));
  }
  return {
    corpus,
    queries: queries.map((q, i) => ({
      _id: ids[i],
      text: q.text,
      metadata: { type: q.type, split: split.get(ids[i]) ?? 'test' },
    })),
    qrels: queries.flatMap((q, i) => q.evidence.map(([doc, score]) => [ids[i], doc, score] as const)),
  };
}

const partIds = new Map<string, string[]>();

/** Sessions for an arc's parts: increasing, the first in a lightly loaded session. */
function placeParts(parts: number, load: number[], random: () => number): number[] {
  const lastStart = load.length - parts;
  const starts = Array.from({ length: lastStart + 1 }, (_, i) => i);
  const lightest = Math.min(...starts.map((s) => load[s]));
  const candidates = starts.filter((s) => load[s] === lightest);
  const sessions = [candidates[Math.floor(random() * candidates.length)]];
  for (let part = 1; part < parts; part += 1) {
    const previous = sessions[part - 1];
    const latest = load.length - (parts - part);
    sessions.push(previous + 1 + Math.floor(random() * (latest - previous)));
  }
  sessions.forEach((s) => (load[s] += 1));
  return sessions;
}
