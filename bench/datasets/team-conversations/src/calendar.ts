import type { SessionDay } from './types';

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
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
  'November',
  'December',
];
const DAY_MS = 86_400_000;

export function addDays(date: Date, days: number): Date {
  return new Date(date.getTime() + days * DAY_MS);
}

/** Monday-based week index, so "on Tuesday" means this week and "last Tuesday" the one before. */
function weekStart(date: Date): number {
  const mondayOffset = (date.getUTCDay() + 6) % 7;
  return Math.floor(addDays(date, -mondayOffset).getTime() / DAY_MS);
}

export function longDate(date: Date): string {
  return `${WEEKDAYS[date.getUTCDay()]} ${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]}`;
}

/** The weekday `count` working days before `date`: teams talk about events on working days. */
export function workdaysBefore(date: Date, count: number): Date {
  let day = date;
  for (let left = count; left > 0;) {
    day = addDays(day, -1);
    if (day.getUTCDay() !== 0 && day.getUTCDay() !== 6) left -= 1;
  }
  return day;
}

export function sessionDay(date: Date): SessionDay {
  const relative = (then: Date, calendarDays: number, past: boolean) => {
    if (calendarDays === 0) return 'this morning';
    if (calendarDays === 1) return past ? 'yesterday' : 'tomorrow';
    const name = WEEKDAYS[then.getUTCDay()];
    if (weekStart(then) === weekStart(date)) return `on ${name}`;
    return past ? `last ${name}` : `next ${name}`;
  };
  return {
    date,
    ago(days) {
      const then = workdaysBefore(date, days);
      return relative(then, Math.round((date.getTime() - then.getTime()) / DAY_MS), true);
    },
    ahead(days) {
      const then = addDays(date, days);
      return relative(then, days, false);
    },
    dayName: (offset) => longDate(offset < 0 ? workdaysBefore(date, -offset) : addDays(date, offset)),
  };
}

/** Session dates: weekdays from `start`, 1–4 days apart, at 09:30 UTC. */
export function sessionDates(start: Date, count: number, gap: () => number): Date[] {
  const dates: Date[] = [];
  let day = start;
  for (let i = 0; i < count; i += 1) {
    while (day.getUTCDay() === 0 || day.getUTCDay() === 6) day = addDays(day, 1);
    dates.push(new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate(), 9, 30)));
    day = addDays(day, gap());
  }
  return dates;
}

/** mulberry32: small, seeded, the same sequence on every machine. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
