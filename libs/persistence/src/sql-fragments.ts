/**
 * A timestamptz column as ISO-8601 with microseconds and an explicit offset
 * (`2026-11-21T10:19:00.145000+00:00`): the wire format, produced in SQL so `pg` never rounds it.
 */
export const isoTimestamp = (column: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"')`;
