import { casual, type ParsedResult } from 'chrono-node';

/** English names as a question writes them: "Thursday 18 January 2024". */
const english = (options: Intl.DateTimeFormatOptions) =>
  new Intl.DateTimeFormat('en-GB', { ...options, timeZone: 'UTC' });
const WEEKDAYS = Array.from({ length: 7 }, (_, i) =>
  english({ weekday: 'long' }).format(Date.UTC(2024, 0, 7 + i)),
);
const MONTHS = Array.from({ length: 12 }, (_, i) => english({ month: 'long' }).format(Date.UTC(2024, i, 1)));
const DAY = english({ weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' });

/**
 * Words every accepted expression contains. Most memories have none, and the parser (tens of
 * microseconds per sentence) then never runs on the write path.
 */
const CANDIDATE_WORDS =
  /\b(?:yesterday|today|tonight|tomorrow|night|morning|afternoon|evening|days?|weeks?|fortnight|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b/i;

/** Abbreviations ("sat down", "Sun", "wed") are words too often; only full names count. */
const FULL_WEEKDAY = /\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b/i;

/**
 * "Thursday 18 January 2024": the words a question uses. No ISO form as well: each added word makes
 * the memory longer for BM25 and dilutes a short memory's embedding, and the evaluation did worse
 * with it (docs/performance.md).
 */
const DATE_PHRASE = `(?:${WEEKDAYS.join('|')}) \\d{1,2} (?:${MONTHS.join('|')}) \\d{4}`;

/** The resolved dates at the end of a keywords text, as `withResolvedDates` appends them. */
const TRAILING_DATES = new RegExp(`(?:^|\\s+)${DATE_PHRASE}(?:\\s+${DATE_PHRASE})*$`);

/**
 * Only expressions whose day depends on when they were said. Absolute dates ("18 January", "May
 * 3") already match a question as written; "now", bare times ("at 5pm", "in 3 hours"), "morning"
 * without "this", durations, and weeks, months or years as a whole name no particular day.
 */
function isRelativeDay(result: ParsedResult, text: string): boolean {
  const tags = result.tags();
  const known = result.start;
  if (tags.has('casualReference/now')) return false;
  if (tags.has('parser/ENCasualDateParser')) return true; // yesterday, today, tonight, tomorrow, last night
  if (tags.has('parser/ENCasualTimeParser')) return /^this\b/i.test(result.text);
  if (tags.has('result/relativeDate')) {
    // "kept for 30 days" is a duration, not a day 30 days on.
    const duration = /^for\b/i.test(result.text);
    return !duration && !tags.has('result/relativeDateAndTime') && known.isCertain('day');
  }
  // A weekday alone ("last Friday", "on Tuesday"), but not a recurring one ("every Monday", "the
  // Thursday syncs").
  const onlyWeekday = known.isCertain('weekday') && !known.isCertain('day') && !known.isCertain('month');
  const recurring = /\b(?:every|the)\s+$/i.test(text.slice(0, result.index));
  return onlyWeekday && FULL_WEEKDAY.test(result.text) && !recurring;
}

/**
 * The days named by a text's relative expressions ("yesterday", "last Friday", "next week", "in
 * two weeks", "this morning"), resolved against `reference` — when the text was said — in UTC,
 * as ISO dates (YYYY-MM-DD) in order of first mention, each once.
 */
export function resolveRelativeDates(text: string, reference: Date): string[] {
  if (!CANDIDATE_WORDS.test(text)) return [];
  const days = casual
    .parse(text, { instant: reference, timezone: 'UTC' })
    .filter((result) => isRelativeDay(result, text))
    .map((result) => result.start.date().toISOString().slice(0, 10));
  return [...new Set(days)];
}

/** "2024-01-18" → "Thursday 18 January 2024". */
export function datePhrase(isoDay: string): string {
  const parts = DAY.formatToParts(new Date(`${isoDay}T00:00:00Z`));
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value;
  return `${part('weekday')} ${part('day')} ${part('month')} ${part('year')}`;
}

/**
 * A memory's expanded keywords with the dates its content's relative expressions name appended,
 * so the text and vector legs of recall find it by the date a question asks about. The dates
 * appended by an earlier write are dropped first: a changed content (or a memory read and written
 * back whole) carries only the dates its current text names.
 */
export function withResolvedDates(keywords: string, content: string, reference: Date): string {
  const own = keywords.replace(TRAILING_DATES, '');
  const dates = resolveRelativeDates(content, reference).map(datePhrase);
  return [own, ...dates].filter((part) => part.length > 0).join(' ');
}
