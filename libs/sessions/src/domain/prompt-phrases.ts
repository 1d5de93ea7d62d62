import {
  asSentence,
  CANDIDATE_LIMITS,
  cleanText,
  hasSubstance,
  isQuestion,
  type CandidateKind,
} from './memory-candidate';

/**
 * The phrases of a user's prompt that say something durable: "remember that …", "note to self …",
 * "no, use X instead", "don't use X, use Y", "we decided …", "let's go with …". Rules are anchored at
 * the start of a sentence and refuse questions, code, quotes and vague references ("let's go with
 * that"), because a false memory costs more than a missed one: the user can always say it again.
 */
export interface Phrase {
  readonly kind: CandidateKind;
  readonly content: string;
  readonly private: boolean;
}

/** Phrases found in prompt text, in order. */
export function phrasesIn(text: string): Phrase[] {
  const phrases: Phrase[] = [];
  for (const line of proseLines(text)) {
    const sentences = splitSentences(line);
    for (let i = 0; i < sentences.length; i += 1) {
      let phrase = matchSentence(sentences[i]);
      // "Don't use npm. Use pnpm." states one correction over two sentences.
      if (!phrase && i + 1 < sentences.length && NEGATED_USE.test(withoutFiller(sentences[i]))) {
        phrase = matchSentence(`${sentences[i]} ${sentences[i + 1]}`);
        if (phrase) i += 1;
      }
      if (phrase) phrases.push(phrase);
    }
  }
  return phrases;
}

/** Lines of prose: fenced code, indented code, quotes, shell lines and code-looking lines dropped. */
export function proseLines(text: string): string[] {
  const lines: string[] = [];
  let fence: string | null = null;
  for (const line of text.replace(/\r\n?/g, '\n').split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line);
    if (marker) {
      if (fence === null) fence = marker[1][0];
      else if (marker[1][0] === fence) fence = null;
      continue;
    }
    if (fence !== null || /^(?: {4}|\t)/.test(line) || /^\s*>/.test(line) || /^\s*[$%]\s/.test(line))
      continue;
    const prose = line.replace(/^\s*(?:#{1,6}\s+|[-*+•]\s+|\d{1,3}[.)]\s+)/, '').trim();
    if (prose !== '' && !looksLikeCode(prose)) lines.push(prose);
  }
  return lines;
}

function looksLikeCode(line: string): boolean {
  return (
    /[;{}]$/.test(line) ||
    /^(?:import|export|const|let|var|function|class|def|return|async|await|if\s*\(|for\s*\(|while\s*\()\s/.test(
      line,
    ) ||
    /^(?:\/\/|\/\*|\*\/|#include|<\/?[a-zA-Z][\w-]*[\s>/])/.test(line) ||
    /^(?:SELECT|INSERT|UPDATE|DELETE|CREATE|ALTER|DROP)\s/.test(line)
  );
}

function splitSentences(line: string): string[] {
  return line
    .split(/(?<=[.!?])\s+(?=["'(`[]?[A-Z])/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

const FILLER =
  /^(?:(?:ok(?:ay)?|alright|all right|so|and|also|oh|btw|by the way|please|hey|great|thanks|thank you|cool|good|perfect|yes|yeah|yep|sure|right|fine|one more thing|one last thing)\b[\s,!.:;–—-]*)+/i;
const withoutFiller = (sentence: string) => sentence.replace(FILLER, '');

const PRIVATE_MARKER = /\s*(?:\((?:private|just for me|only for me)\)|\[private\])\s*/gi;
const PRIVATE_PREFIX = /^(?:private(?:ly)?\s*[:,]?\s+)/i;
const PRIVATE_SUFFIX = /[\s,;–—-]*\b(?:just|only) for me[.!]*$/i;

/** A sentence without its privacy marker ("(private)", "privately …", "… just for me"), and whether it had one. */
export function takePrivate(sentence: string): { text: string; private: boolean } {
  let text = sentence.replace(PRIVATE_MARKER, ' ').trim();
  let marked = text !== sentence.trim();
  for (const pattern of [PRIVATE_PREFIX, PRIVATE_SUFFIX]) {
    if (pattern.test(text)) {
      text = text.replace(pattern, '').trim();
      marked = true;
    }
  }
  return { text, private: marked };
}

/** A reference to something only the conversation knows ("that", "option 2", "your approach"). */
const VAGUE =
  /^(?:it|this|that|these|those|them|one|ones|you|me|him|the one|the (?:first|second|third|last|former|latter|above|same|other|previous|next|flow)|the (?:plan|idea|approach|suggestion|option|solution|proposal|change|changes|fix|design|way you)|(?:option|approach|plan|variant|choice|alternative|solution|version|idea|suggestion)s?(?:\s+#?[a-z0-9]{1,3})?|#?\d+|your|yours|my|his|her|their|what|whatever|something|anything|yes|no|both|either|neither|a different)(?:\b|$)/i;
/** "we decided to go with that", "remember to update it": a short term whose object is elsewhere. */
const ENDS_VAGUE = /\b(?:that|this|it|them|those|these|one|ones|so)[\s.!]*$/i;
const isVague = (term: string) =>
  VAGUE.test(term.trim()) || (ENDS_VAGUE.test(term) && term.trim().split(/\s+/).length <= 4);

/** Uses for a while only: "we'll use X for now" is not a decision worth keeping. */
const TEMPORARY =
  /^(?:now|the moment|today|a while|a bit|the time being|this|that|it|testing|this one|the test|this test|this task|this session)\b/i;

/** A statement has a verb; "remember the good old days" does not state a fact. */
const HAS_VERB =
  /(?:\b(?:is|are|was|were|isn't|aren't|wasn't|has|have|hasn't|haven't|had|must|should|shouldn't|need|needs|use|uses|run|runs|live|lives|require|requires|can|can't|cannot|won't|will|does|doesn't|do|don't|take|takes|go|goes|break|breaks|fail|fails|work|works|return|returns|point|points|belong|belongs|expire|expires|start|starts|stop|stops|get|gets|only)\b|\w'(?:s|re)\b)/i;

const REMEMBER_NOT_A_FACT =
  /^(?:when|how|what|why|where|which|who|whom|whose|if|whether|me|us|you|him|her|them|it|this|these|those|to|that|the (?:time|day|days|good|old)|last|back|correctly|right|exactly|anything|nothing|something|everything|everyone|everybody|seeing|reading|doing|having|being|ever|any)\b/i;
/** After "remember that": "remember that for later", "remember that one". */
const THAT_NOT_A_FACT = /^(?:thing|one|for|too|as well|please|ok|okay|later|well|stuff|part)\b/i;

const SEP = String.raw`(?:\s*(?::|,|–|—|\s-)\s*|\s+)`;
const LEAD = String.raw`(?:no|nope|nah|wrong|incorrect|not quite|that'?s (?:wrong|not right|incorrect)|that is (?:wrong|not right|incorrect))`;
const LEAD_OR_ACTUALLY = `(?:${LEAD}|actually)`;
const LEAD_SEP = String.raw`[\s,.!:;–—-]+`;
const END = String.raw`[\s.!]*$`;
const NEGATED_USE = new RegExp(
  `^(?:${LEAD}${LEAD_SEP})?(?:please\\s+)?(?:don'?t|do not|never|stop)\\s+us`,
  'i',
);

interface Rule {
  readonly kind: CandidateKind;
  readonly pattern: RegExp;
  /** The memory's text from the match, or null when the match says nothing durable. */
  readonly build: (match: RegExpExecArray, sentence: string) => string | null;
}

/** "Remember, I asked you to fix the tests first": a reminder about this conversation, not a fact. */
const CONVERSATIONAL =
  /^(?:(?:i|you|we)\s+(?:asked|told|said|mentioned|talked|discussed|just|already)|(?:i'm|you're|we're)\b|earlier|before|last time|yesterday|what i said)\b/i;
const fact = (term: string | undefined) =>
  term && hasSubstance(term, PHRASE_SUBSTANCE) && !CONVERSATIONAL.test(term) ? term : null;
/** "use the helper instead": without "of Y", only a named thing is a durable correction. */
const DETERMINER = /^(?:the|a|an|some|another|this|that|these|those|my|your|our|its|their)\b/i;
const keepSentence = (term: string | undefined, sentence: string) =>
  term && !isVague(term) ? sentence : null;
const trimTerm = (term: string) => term.trim().replace(/^["'“”‘’]+|["'“”‘’.,;:!]+$/g, '');
const term = (value: string | undefined) => (value === undefined ? undefined : trimTerm(value));
const validTerm = (value: string | undefined): value is string =>
  value !== undefined && value !== '' && value.length <= 80 && !isVague(value) && !/[?]/.test(value);

const PHRASE_SUBSTANCE = { minChars: 12, minWords: 3 };

const RULES: readonly Rule[] = [
  // Explicit notes.
  {
    kind: 'remember',
    pattern: /^(?:(?:always|do)\s+)?remember(?:\s+(?:this|that))?\s*(?::|–|—|\s-)\s*(.+)$/i,
    build: (m) => fact(m[1]),
  },
  { kind: 'remember', pattern: /^(?:(?:always|do)\s+)?remember\s*,\s*(.+)$/i, build: (m) => fact(m[1]) },
  {
    kind: 'remember',
    pattern: /^(?:(?:always|do)\s+)?remember\s+that\s+(.+)$/i,
    build: (m) => (THAT_NOT_A_FACT.test(m[1]) ? null : fact(m[1])),
  },
  {
    kind: 'remember',
    pattern: /^(?:(?:always|do)\s+)?remember\s+to\s+(.+)$/i,
    build: (m, sentence) => (fact(m[1]) && !isVague(m[1]) ? sentence : null),
  },
  {
    kind: 'remember',
    pattern: /^(?:(?:always|do)\s+)?remember\s+(.+)$/i,
    build: (m) => (REMEMBER_NOT_A_FACT.test(m[1]) || !HAS_VERB.test(m[1]) ? null : fact(m[1])),
  },
  { kind: 'remember', pattern: new RegExp(`^note to self${SEP}(.+)$`, 'i'), build: (m) => fact(m[1]) },
  {
    kind: 'remember',
    pattern: new RegExp(`^for (?:future|later) reference${SEP}(.+)$`, 'i'),
    build: (m) => fact(m[1]),
  },
  // Corrections: "no, use X instead (of Y)", "actually, we use X, not Y", "don't use X, use Y".
  {
    kind: 'correction',
    pattern: new RegExp(
      `^${LEAD_OR_ACTUALLY}${LEAD_SEP}(?:please\\s+)?(?:just\\s+)?(?:we\\s+|you\\s+should\\s+)?use\\s+(.+?)\\s+instead(?:\\s+of\\s+(.+?))?${END}`,
      'i',
    ),
    build: (m) => {
      const [x, y] = [term(m[1]), term(m[2])];
      if (!validTerm(x) || (y !== undefined && !validTerm(y))) return null;
      if (y === undefined) return DETERMINER.test(x) ? null : `Use ${x}`;
      return `Use ${x} instead of ${y}`;
    },
  },
  {
    kind: 'correction',
    pattern: new RegExp(
      `^${LEAD_OR_ACTUALLY}${LEAD_SEP}(?:(we|you should|we should|we always|you always|i)\\s+)?(use|prefer|run|call|want)\\s+(.+?),?\\s+(?:and\\s+|but\\s+)?not\\s+(.+?)${END}`,
      'i',
    ),
    build: (m) => {
      const [x, y] = [term(m[3]), term(m[4])];
      if (!validTerm(x) || !validTerm(y)) return null;
      const subject = m[1] ? `${m[1].toLowerCase() === 'i' ? 'I' : m[1]} ` : '';
      return `${subject}${m[2].toLowerCase()} ${x}, not ${y}`;
    },
  },
  {
    kind: 'correction',
    pattern: new RegExp(
      `^(?:${LEAD}${LEAD_SEP})?(?:please\\s+)?(?:don'?t|do not|never|stop)\\s+(?:using|use)\\s+(.+?)\\s*(?:[,;:.!]|–|—|\\s-|\\s+and\\b)+\\s*(?:(?:instead|rather)[,]?\\s+)?(?:please\\s+)?(?:use|we use|prefer|switch to|go with)\\s+(.+?)(?:\\s+instead)?${END}`,
      'i',
    ),
    build: (m) => {
      const [x, y] = [term(m[1]), term(m[2])];
      return validTerm(x) && validTerm(y) ? `Use ${y}, not ${x}` : null;
    },
  },
  // Decisions: kept as the user said them.
  {
    kind: 'decision',
    pattern:
      /^(?:we(?:'ve|\s+have)?|the team(?:\s+has)?)\s+(?:(?:all|finally|just|now|already)\s+)?decided\s+(?:to|that|on|against)\s+(.+)$/i,
    build: (m, sentence) => keepSentence(m[1], sentence),
  },
  {
    kind: 'decision',
    pattern: /^decision\s*(?::|–|—|\s-)\s*(.+)$/i,
    build: (m) => (isVague(m[1]) ? null : `Decision: ${m[1]}`),
  },
  { kind: 'decision', pattern: /^let'?s\s+go\s+with\s+(.+)$/i, build: (m, s) => keepSentence(m[1], s) },
  {
    kind: 'decision',
    pattern: /^we(?:'ll|\s+will|'re\s+going\s+to|\s+are\s+going\s+to)\s+use\s+(.+?)\s+for\s+(.+)$/i,
    build: (m, sentence) => (TEMPORARY.test(m[2]) ? null : keepSentence(m[1], sentence)),
  },
  {
    kind: 'decision',
    pattern: /^(?:we(?:'re|\s+are)\s+)?going\s+with\s+(.+)$/i,
    build: (m, s) => keepSentence(m[1], s),
  },
  {
    kind: 'decision',
    pattern: /^we\s+(?:chose|picked|settled on|opted for|agreed on|agreed to)\s+(.+)$/i,
    build: (m, s) => keepSentence(m[1], s),
  },
];

/** The phrase one sentence states, if any. */
export function matchSentence(raw: string): Phrase | null {
  const { text, private: isPrivate } = takePrivate(cleanText(raw));
  const sentence = withoutFiller(text);
  if (sentence === '' || isQuestion(sentence)) return null;
  for (const rule of RULES) {
    const match = rule.pattern.exec(sentence);
    if (!match) continue;
    const built = rule.build(match, sentence);
    if (built === null) return null;
    const content = asSentence(built);
    if (content.length > CANDIDATE_LIMITS.maxPhraseChars) return null;
    if (
      !hasSubstance(content, rule.kind === 'correction' ? { minChars: 5, minWords: 2 } : PHRASE_SUBSTANCE)
    ) {
      return null;
    }
    return { kind: rule.kind, content, private: isPrivate };
  }
  return null;
}
