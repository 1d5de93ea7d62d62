import { describe, expect, it } from 'vitest';
import { datePhrase, resolveRelativeDates, withResolvedDates } from './relative-dates';

// Friday 19 January 2024, mid-morning UTC.
const FRIDAY = new Date('2024-01-19T09:30:00Z');

describe('relative dates', () => {
  it('resolves a relative day against when the text was said', () => {
    expect(resolveRelativeDates('Yesterday inventory-sync threw 502s.', FRIDAY)).toEqual(['2024-01-18']);
    expect(resolveRelativeDates('We shipped it last Friday.', FRIDAY)).toEqual(['2024-01-12']);
    expect(resolveRelativeDates('The migration starts next week.', FRIDAY)).toEqual(['2024-01-26']);
    expect(resolveRelativeDates('Back tomorrow.', FRIDAY)).toEqual(['2024-01-20']);
    expect(resolveRelativeDates('The cache flapped this morning.', FRIDAY)).toEqual(['2024-01-19']);
    expect(resolveRelativeDates('Cutover in two weeks.', FRIDAY)).toEqual(['2024-02-02']);
    expect(resolveRelativeDates('It broke 3 days ago.', FRIDAY)).toEqual(['2024-01-16']);
    expect(resolveRelativeDates('It broke on Tuesday.', FRIDAY)).toEqual(['2024-01-16']);
  });

  it('lists each day once, in order of first mention', () => {
    const text = 'Tomorrow we roll back what broke yesterday; tomorrow afternoon we retry.';
    expect(resolveRelativeDates(text, FRIDAY)).toEqual(['2024-01-20', '2024-01-18']);
  });

  it('finds nothing in text without relative dates', () => {
    expect(resolveRelativeDates('Use pnpm in usage-meter, not npm.', FRIDAY)).toEqual([]);
    expect(resolveRelativeDates('', FRIDAY)).toEqual([]);
  });

  it('leaves absolute dates as written: they already match a question', () => {
    expect(resolveRelativeDates('The outage was on 18 January.', FRIDAY)).toEqual([]);
    expect(resolveRelativeDates('Freeze from May 3 until 2024-06-01.', FRIDAY)).toEqual([]);
  });

  it('does not take verbs, abbreviations or times for days', () => {
    expect(resolveRelativeDates('We may need to restart; march the change through review.', FRIDAY)).toEqual(
      [],
    );
    expect(resolveRelativeDates('I sat down with the Sun team; wed the two configs.', FRIDAY)).toEqual([]);
    expect(resolveRelativeDates('It now runs at 5pm, in 3 hours, every morning.', FRIDAY)).toEqual([]);
    expect(resolveRelativeDates('The cron job runs every Monday.', FRIDAY)).toEqual([]);
    expect(resolveRelativeDates('Moving abroad? Keep the Thursday syncs.', FRIDAY)).toEqual([]);
    expect(resolveRelativeDates('Planning happens this week; billing closes next month.', FRIDAY)).toEqual(
      [],
    );
    expect(resolveRelativeDates('Logs are kept for 30 days.', FRIDAY)).toEqual([]);
  });

  it('writes a day as a question would name it, with the ISO date', () => {
    expect(datePhrase('2024-01-18')).toBe('Thursday 18 January 2024');
  });

  it('appends the resolved dates to the keywords and replaces those of an earlier write', () => {
    const first = withResolvedDates('inventory-sync outage', 'It broke yesterday.', FRIDAY);
    expect(first).toBe('inventory-sync outage Thursday 18 January 2024');
    // Written back whole, or with new content: only the current content's dates remain.
    expect(withResolvedDates(first, 'It broke yesterday.', FRIDAY)).toBe(first);
    expect(withResolvedDates(first, 'It broke last Friday.', FRIDAY)).toBe(
      'inventory-sync outage Friday 12 January 2024',
    );
    expect(withResolvedDates(first, 'It broke.', FRIDAY)).toBe('inventory-sync outage');
    expect(withResolvedDates('', 'Back tomorrow.', FRIDAY)).toBe('Saturday 20 January 2024');
    expect(withResolvedDates('pnpm lockfile', 'Use pnpm.', FRIDAY)).toBe('pnpm lockfile');
  });
});
