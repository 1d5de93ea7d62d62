import { renderBeirFiles } from '../../beir-files';
import { POOLS, STORIES, type Pool, type QuestionType, type Speaker, type Story } from './arcs';

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

export interface UnanswerableRow {
  readonly _id: string;
  readonly text: string;
  readonly metadata: {
    readonly kind: 'made-up' | 'made-up-name' | 'absent-topic';
    readonly split: 'dev' | 'test';
  };
}

export interface Dataset {
  readonly corpus: readonly CorpusRow[];
  readonly queries: readonly QueryRow[];
  /** [query id, corpus id, score] */
  readonly qrels: readonly (readonly [string, string, 1 | 2])[];
  readonly unanswerable: readonly UnanswerableRow[];
}

export const SEED = 20_261_201;
const CONVERSATIONS = 16;
const SESSIONS = 14;
const STORIES_PER_CONVERSATION = 13;
const DEV_SHARE = 0.4;

/** Two friends per conversation; no first name is used twice in the set. */
const FRIENDS = [
  'Maya',
  'Tom',
  'Priya',
  'Jonas',
  'Elena',
  'Sam',
  'Noor',
  'Felipe',
  'Aisha',
  'Ben',
  'Clara',
  'Diego',
  'Hana',
  'Omar',
  'Lucy',
  'Marco',
  'Ines',
  'Raj',
  'Sofia',
  'Kai',
  'Zara',
  'Leo',
  'Mila',
  'Theo',
  'Nina',
  'Arjun',
  'Freya',
  'Hugo',
  'Yara',
  'Oscar',
  'Lina',
  'Pavel',
];

/** Conversation names (ids only, never in the text). */
const CONVERSATION_NAMES = [
  'alder',
  'birch',
  'cedar',
  'dogwood',
  'elm',
  'fir',
  'ginkgo',
  'hazel',
  'ivy',
  'juniper',
  'kapok',
  'larch',
  'maple',
  'nutmeg',
  'oak',
  'poplar',
];

/** Openers, small talk and sign-offs: what friends say between the stories, near-misses included. */
const OPENERS = [
  'Hey you! It has been ages, how are things?',
  'Sorry I went quiet, the last few weeks were chaos.',
  'Hiya, are you free for a quick catch-up?',
  'Morning! Finally a minute to reply properly.',
  'Hello stranger! I was just thinking about you.',
];
const SMALL_TALK = [
  'The weather has been grim, it rained the whole weekend.',
  'I binge-watched an entire season of that baking show.',
  'Work has been quiet, thankfully.',
  'Did you see the match on Saturday? What a finish.',
  'I am thinking of repainting the kitchen a dark green.',
  'My phone screen cracked again, third time this year.',
  'I tried the new coffee place on the corner, very overpriced.',
  'The neighbours\u2019 dog barks all night, I am exhausted.',
  'I have been reading more on my commute lately.',
  'We went for a long walk by the river on Sunday.',
  'I really need a holiday.',
  'My mum called, she says hello by the way.',
  'I finally cleared out the spare room.',
  'Have you watched the new detective series everyone is talking about?',
  'The trains were cancelled again this morning.',
  'I made soup for the whole week, feeling very organised.',
  'My back hurts from sitting at my desk all day.',
  'I went to a friend\u2019s birthday party, got home at three.',
  'We have been trying to eat less meat.',
  'The garden centre had a sale, I bought far too many plants.',
  'My brother keeps sending me memes at 2am.',
  'I am so behind on emails it is embarrassing.',
  'Did you ever fix your bike?',
  'I started going to bed earlier, it is life-changing.',
  'The cat from next door has adopted us, apparently.',
  'I had the strangest dream about our old school.',
  'Traffic in town is unbearable with the roadworks.',
  'I signed up for a newsletter about houseplants, I have a problem.',
];
const REPLIES = [
  'Ha, same here.',
  'Oh no!',
  'That sounds lovely.',
  'Tell me about it.',
  'Classic.',
  'Honestly, yes.',
  'No way.',
  'I know the feeling.',
];
const SIGN_OFFS = [
  'Anyway, I should get going. Talk soon!',
  'Let us catch up again in a few weeks.',
  'Right, dinner is burning. Speak later!',
  'Lovely chatting, as always.',
];

/** Questions nothing in the set answers: made-up words, questions about an unknown person, absent topics. */
const MADE_UP_NAMES = [
  'Quillon',
  'Brevka',
  'Tamzorin',
  'Ulvetta',
  'Pardeux',
  'Skorvald',
  'Mirabelka',
  'Zentho',
  'Ovaline',
  'Krastof',
  'Belvane',
  'Ysolde',
];
const NAME_QUESTIONS = [
  (n: string) => `What breed is ${n}'s new dog?`,
  (n: string) => `Which city did ${n} visit on holiday?`,
  (n: string) => `What is ${n} retraining as?`,
  (n: string) => `When did ${n} pass the driving test?`,
  (n: string) => `Which instrument is ${n} learning?`,
  (n: string) => `Where is ${n} getting married?`,
];
const ABSENT_TOPICS = [
  'How do I bleed a radiator?',
  'What is the capital of Mongolia?',
  'Which mortgage rate did the bank offer on the fixed deal?',
  'How many moons does Jupiter have?',
  'What firmware version is on the office router?',
  'Who won the chess olympiad?',
  'How do I descale an espresso machine?',
  'What is the boiling point of nitrogen?',
  'Which tax form is due in January for freelancers?',
  'How do you replace a bicycle chain?',
  'What are the rules of cricket?',
  'Which vaccine do cats need every year?',
  'How long should you rest bread dough in the fridge?',
  'What is the best way to learn calculus?',
  'Which satellite launched last spring?',
  'How do I reset a forgotten voicemail PIN?',
  'What are good stretches for a stiff neck?',
  'Who designed the Sydney Opera House?',
  'What is the exchange rate of the Swiss franc?',
  'How do you make kimchi at home?',
];

/** Deterministic random numbers (mulberry32). */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const DAY_MS = 86_400_000;

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
  const pools = new Map(Object.entries(POOLS).map(([k, v]) => [k, shuffle(v)]));
  const take = (pool: Pool): string => {
    const name = pools.get(pool)?.pop();
    if (name === undefined) throw new Error(`pool "${pool}" ran out: add names to arcs.ts`);
    return name;
  };
  const friends = shuffle(FRIENDS);
  const corpus: CorpusRow[] = [];
  const questions: { text: string; type: QuestionType; evidence: [string, 1 | 2][] }[] = [];

  for (let c = 0; c < CONVERSATIONS; c += 1) {
    const conversation = CONVERSATION_NAMES[c];
    const names = [friends[2 * c], friends[2 * c + 1]] as const;
    // Sessions weeks to months apart, starting somewhere in 2023.
    let at = Date.UTC(2023, int(0, 2), int(1, 28), int(17, 21), 0);
    const dates: number[] = [];
    for (let s = 0; s < SESSIONS; s += 1) {
      dates.push(at);
      at += int(9, 60) * DAY_MS;
    }
    // Each story about either friend; its parts land in increasing sessions.
    const sessionParts: { story: number; part: number }[][] = dates.map(() => []);
    const stories: { story: Story; ids: string[][] }[] = [];
    const templates = shuffle(STORIES).slice(0, STORIES_PER_CONVERSATION);
    for (const template of templates) {
      const about = int(0, 1) as Speaker;
      const [a, b] = about === 0 ? names : [names[1], names[0]];
      const story = template({ a, b, take, pick, int });
      const span = story.parts.length;
      const index = stories.length;
      stories.push({ story: remap(story, about), ids: story.parts.map(() => []) });
      // At least one session between two parts of a story.
      let session = int(0, SESSIONS - 1 - 2 * (span - 1));
      for (let part = 0; part < span; part += 1) {
        sessionParts[session].push({ story: index, part });
        const left = span - part - 1;
        if (left > 0) session += int(2, Math.max(2, Math.floor((SESSIONS - 1 - session) / left)));
      }
    }
    const talk = shuffle(SMALL_TALK);
    let told = 0;
    for (let s = 0; s < SESSIONS; s += 1) {
      const date = new Date(dates[s]).toISOString();
      let turn = 0;
      const say = (who: Speaker, text: string): string => {
        turn += 1;
        const id = `${conversation}-s${s + 1}-t${String(turn).padStart(2, '0')}`;
        corpus.push({
          _id: id,
          title: '',
          text: `${names[who]}: ${text}`,
          metadata: { conversation, session: s + 1, turn, date, speaker: names[who] },
        });
        return id;
      };
      const opener = int(0, 1) as Speaker;
      say(opener, pick(OPENERS));
      say(opener === 0 ? 1 : 0, pick(REPLIES));
      // Small talk around the stories: the set's near-misses.
      const chat = () => {
        const who = int(0, 1) as Speaker;
        say(who, talk[told++ % talk.length]);
        if (random() < 0.6) say(who === 0 ? 1 : 0, pick(REPLIES));
      };
      for (let n = int(1, 2); n > 0; n -= 1) chat();
      for (const { story, part } of shuffle(sessionParts[s])) {
        const entry = stories[story];
        for (const line of entry.story.parts[part]) entry.ids[part].push(say(line.who, line.say));
        if (random() < 0.5) chat();
      }
      say(int(0, 1) as Speaker, pick(SIGN_OFFS));
    }
    for (const { story, ids } of stories) {
      for (const q of story.questions) {
        questions.push({
          text: q.text,
          type: q.type,
          evidence: q.evidence.map(([part, line, score]) => [ids[part][line], score]),
        });
      }
    }
  }

  // Questions in a fixed shuffled order; dev takes 40% of each type.
  const ordered = shuffle(questions);
  const devQuota = new Map<QuestionType, number>();
  for (const q of ordered) devQuota.set(q.type, (devQuota.get(q.type) ?? 0) + 1);
  for (const [type, n] of devQuota) devQuota.set(type, Math.round(n * DEV_SHARE));
  const queries: QueryRow[] = [];
  const qrels: [string, string, 1 | 2][] = [];
  for (const [i, q] of ordered.entries()) {
    const id = `q${String(i + 1).padStart(3, '0')}`;
    const left = devQuota.get(q.type) ?? 0;
    devQuota.set(q.type, left - 1);
    queries.push({ _id: id, text: q.text, metadata: { type: q.type, split: left > 0 ? 'dev' : 'test' } });
    for (const [doc, score] of q.evidence) qrels.push([id, doc, score]);
  }

  const unanswerable: UnanswerableRow[] = [];
  const add = (text: string, kind: UnanswerableRow['metadata']['kind']) =>
    unanswerable.push({
      _id: `u${String(unanswerable.length + 1).padStart(3, '0')}`,
      text,
      metadata: { kind, split: unanswerable.length % 2 === 0 ? 'dev' : 'test' },
    });
  for (let i = 0; i < 20; i += 1) add(madeUpWord(random), 'made-up');
  for (const [i, name] of MADE_UP_NAMES.entries())
    add(NAME_QUESTIONS[i % NAME_QUESTIONS.length](name), 'made-up-name');
  for (const text of ABSENT_TOPICS) add(text, 'absent-topic');
  return { corpus, queries, qrels, unanswerable };
}

/** A story told about the second friend: speakers swapped, so `0` is always who it is about. */
function remap(story: Story, about: Speaker): Story {
  if (about === 0) return story;
  return {
    ...story,
    parts: story.parts.map((part) =>
      part.map((line) => ({ ...line, who: (line.who === 0 ? 1 : 0) as Speaker })),
    ),
  };
}

/** A pronounceable word no dictionary holds. */
function madeUpWord(random: () => number): string {
  const onsets = ['bl', 'kr', 'sn', 'gw', 'th', 'v', 'z', 'pl', 'dr', 'qu'];
  const vowels = ['a', 'e', 'i', 'o', 'u', 'oo', 'ai', 'ei'];
  const codas = ['nk', 'rx', 'zz', 'lf', 'mp', 'sk', 'nd', 'th'];
  const part = () =>
    onsets[Math.floor(random() * onsets.length)] +
    vowels[Math.floor(random() * vowels.length)] +
    codas[Math.floor(random() * codas.length)];
  return part() + part() + part();
}

/** The BEIR files of the set, by path relative to its folder. */
export function renderFiles(dataset: Dataset): Record<string, string> {
  return renderBeirFiles(dataset);
}
