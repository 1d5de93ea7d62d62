import { SeededRandom } from './seeded-random';
import { ENVIRONMENTS, PEOPLE, PROJECTS, SERVICES, TOPICS, type Topic } from './vocabulary';

/** A synthetic memory, shaped like a store request (`NewMemory`) plus its owner. */
export interface GeneratedMemory {
  /** 0-based index of the owning user. */
  readonly owner: number;
  readonly content: string;
  readonly category: string;
  readonly tags: readonly string[];
  readonly expandedKeywords: string;
  readonly importance: number;
  readonly project: string | null;
}

export interface GeneratedQuery {
  readonly owner: number;
  readonly text: string;
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
];
const IMPORTANCE = [0.3, 0.5, 0.5, 0.5, 0.6, 0.7, 0.8, 0.9];

type Writer = (r: SeededRandom, topic: Topic, slots: Slots) => string;

interface Slots {
  readonly service: string;
  readonly env: string;
  readonly tool: string;
  readonly person: string;
}

const fill = (template: string, slots: Slots) =>
  template.replace('{service}', slots.service).replace('{tool}', slots.tool);

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** One sentence builder per category; each category has a recognisable voice, as agents write them. */
const WRITERS: Readonly<Record<string, Writer>> = {
  facts: (r, t, s) =>
    r.pick([
      () => `${capitalise(s.service)}: ${fill(r.pick(t.facts), s)}.`,
      () => `In ${s.env}, ${fill(r.pick(t.facts), s)} for ${s.service}.`,
      () => `${capitalise(fill(r.pick(t.facts), s))} (${s.service}, uses ${s.tool}).`,
    ])(),
  decisions: (r, t, s) =>
    r.pick([
      () => `We decided to ${fill(r.pick(t.decisions), s)} for ${s.service} because ${r.pick(t.reasons)}.`,
      () =>
        `Decision from ${r.pick(MONTHS)}: ${fill(r.pick(t.decisions), s)}. ${s.person} signed off since ${r.pick(t.reasons)}.`,
    ])(),
  gotchas: (r, t, s) =>
    `Gotcha: ${fill(r.pick(t.gotchas), s)} when ${r.pick(t.conditions)}. Seen on ${s.service} in ${s.env}.`,
  preferences: (r, t, s) => {
    const [preferred, instead] = r.pick(t.preferences);
    return `${s.person} prefers ${preferred} over ${instead} in ${s.service} reviews.`;
  },
  corrections: (r, t, s) => {
    const other = r.pick(ENVIRONMENTS.filter((e) => e !== s.env));
    return `Correction: ${fill(r.pick(t.facts), s)} for ${s.service} in ${s.env}, not in ${other} as noted earlier.`;
  },
};

const CATEGORIES = Object.keys(WRITERS);

const TRAILERS: readonly ((r: SeededRandom, s: Slots) => string)[] = [
  (_r, s) => `Ask ${s.person} for details.`,
  (r) => `See the runbook in the ${r.pick(PROJECTS)} wiki.`,
  (r) => `Ticket ${r.pick(PROJECTS).toUpperCase()}-${r.int(100, 9999)}.`,
  (_r, s) => `Confirmed with ${s.person} last week.`,
  (r) => `This bit us ${r.int(2, 6)} times already.`,
];

/**
 * Deterministic synthetic memories for `users` owners, round-robin so every user gets an equal
 * share (the benchmark's "1% of rows per user" case). Content is unique per owner, as the API's
 * duplicate rule requires.
 */
export function* generateMemories(options: {
  count: number;
  users: number;
  seed: number;
}): Generator<GeneratedMemory> {
  const r = new SeededRandom(options.seed);
  const seen = new Set<string>();
  for (let i = 0; i < options.count; i++) {
    const owner = i % options.users;
    let memory = generateOne(r, owner);
    // The combinatorial space is large; a collision is rare, and another draw resolves it.
    while (seen.has(`${owner}\u0000${memory.content}`)) memory = generateOne(r, owner);
    seen.add(`${owner}\u0000${memory.content}`);
    yield memory;
  }
}

function generateOne(r: SeededRandom, owner: number): GeneratedMemory {
  const topic = r.pick(TOPICS);
  const slots: Slots = {
    service: r.pick(SERVICES),
    env: r.pick(ENVIRONMENTS),
    tool: r.pick(topic.tools),
    person: r.pick(PEOPLE),
  };
  const category = r.pick(CATEGORIES);
  const sentences = [WRITERS[category](r, topic, slots)];
  // Some memories mix topics, as real notes do ("the deploy failed because the migration locked").
  if (r.chance(0.3)) {
    const other = r.pick(TOPICS);
    sentences.push(capitalise(`${fill(r.pick(other.facts), { ...slots, tool: r.pick(other.tools) })}.`));
  }
  if (r.chance(0.5)) sentences.push(r.pick(TRAILERS)(r, slots));
  return {
    owner,
    content: sentences.join(' '),
    category,
    tags: [
      topic.name,
      slots.service,
      ...(r.chance(0.3) ? [slots.tool.toLowerCase().replace(/\s+/g, '-')] : []),
    ],
    expandedKeywords: r.chance(0.6) ? r.sample(topic.keywords, r.int(1, 3)).join(' ') : '',
    importance: r.pick(IMPORTANCE),
    project: r.chance(0.4) ? r.pick(PROJECTS) : null,
  };
}

/**
 * Search phrases in the same vocabulary, for random users. Distinct, and distinct from `exclude`
 * (queries used earlier in the run), so every timed recall misses the query-embedding cache.
 */
export function generateQueries(options: {
  count: number;
  users: number;
  seed: number;
  exclude?: ReadonlySet<string>;
}): GeneratedQuery[] {
  const r = new SeededRandom(options.seed);
  const out = new Map<string, GeneratedQuery>();
  for (let guard = 0; out.size < options.count && guard < options.count * 50; guard++) {
    const topic = r.pick(TOPICS);
    const service = r.pick(SERVICES);
    const text = r.pick([
      () => r.pick(topic.questions).replace('{service}', service),
      () => `${r.pick(topic.keywords)} ${r.pick(topic.tools)} ${service} ${r.pick(ENVIRONMENTS)}`,
      () => `what did ${r.pick(PEOPLE)} decide about ${r.pick(topic.keywords)} for ${service}`,
      () => `${r.pick(topic.gotchas).replace('{service}', service)}?`,
    ])();
    const owner = r.int(0, options.users - 1);
    if (!out.has(text) && !options.exclude?.has(text)) out.set(text, { owner, text });
  }
  return [...out.values()];
}

/** The first `count` items of an iterator (fewer if it ends), leaving the rest in it. */
export function* take<T>(source: Iterator<T>, count: number): Generator<T> {
  for (let i = 0; i < count; i++) {
    const next = source.next();
    if (next.done) return;
    yield next.value;
  }
}
