/**
 * Parses the seed's `?since=` value into a timestamp string Postgres reads exactly (microseconds
 * kept; a JS Date would round them to milliseconds and repeat or skip the boundary row).
 *
 * Accepts ISO-8601 date or date-time, `T` or space between them, optional fraction (1-6 digits),
 * `Z`, `±hh`, `±hhmm` or `±hh:mm`. A space where the offset sign belongs is read as `+`, because an
 * unencoded `+` in a query string arrives as a space. No offset means UTC. Returns null otherwise.
 */
const SINCE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,6}))?)?)?(?:(Z|z)|([+\- ])(\d{2})(?::?(\d{2}))?)?$/;

export function parseSince(raw: string): string | null {
  const m = SINCE.exec(raw);
  if (!m) return null;
  const [, y, mo, d, h = '00', mi = '00', s = '00', frac = '', , sign, oh, om = '00'] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return null;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return null;
  if (oh !== undefined && (Number(oh) > 15 || Number(om) > 59)) return null;
  const offset = sign === undefined ? '+00:00' : `${sign === '-' ? '-' : '+'}${oh}:${om}`;
  return `${y}-${mo}-${d}T${h}:${mi}:${s}.${frac.padEnd(6, '0')}${offset}`;
}

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}
