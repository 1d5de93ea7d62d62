import type { TextIndexUse } from '../recall/floor-text-index';
import type { FloorParts } from '../recall/raw-floor';
import { count, fixed, markdownTable, ms } from './markdown';

/** What the recall floor is, said once for every report that shows it. */
export const RECALL_FLOOR_TEXT = [
  'The floor is the physical limit of one hybrid recall, measured in the same run on the same texts, each',
  "part timed on its own: one raw `embedBatch` of the query; the text leg's top 30 as `TenantTextIndex.search`",
  "on the tenant's loaded index (a tight in-process call; the query's lexemes and the caller's shares are read",
  "beforehand); the vector leg's top 30 as `TenantVectorIndex.search` on the floor's copy of the tenant's",
  'in-memory vectors (its HNSW graph, or every readable vector for a small set; with the vector index off, the',
  "repository's statement through `pg` as the schema owner); and the 10 served rows read by id in one",
  'transaction as the application role with',
  'the caller\'s RLS settings. The floor is their sum. "SQL text leg (fallback)" is `recall_text_search` alone,',
  "the Postgres path recall takes while a tenant's index loads (and took before the index): beside the floor, not in it.",
];

/** The four parts of the floor, in ms (medians): embed · index top-k · vector top-k · rows under RLS. */
export const floorPartsCell = (parts: FloorParts): string =>
  [parts.embedMs, parts.indexMs, parts.vectorMs, parts.rowsMs].map((value) => ms(value)).join(' · ');

/** The index's share of the measured recalls; short of 100% is flagged: some ran in Postgres. */
export function servedByIndex(share: number | null): string {
  if (share === null) return 'n/a';
  const percent = `${(Math.floor(share * 1000) / 10).toString()}%`;
  return share === 1 ? percent : `**${percent}**`;
}

export interface TextIndexRow {
  readonly label: string;
  readonly use: TextIndexUse;
}

const MIB = 1024 * 1024;

export const TEXT_INDEX_HEADER = [
  'memories',
  'index MiB',
  'MiB per 100k memories',
  'load s (floor copy)',
  'load s (app)',
] as const;

/** Heap and load time of one tenant's in-memory text index, scaled per 100k memories. */
export function textIndexCells(use: TextIndexUse): string[] {
  const f = use.floor;
  return [
    f ? count(f.memories) : 'n/a',
    f ? fixed(f.bytes / MIB, 1) : 'n/a',
    f && f.memories > 0 ? fixed((f.bytes / MIB) * (100_000 / f.memories), 1) : 'n/a',
    f ? fixed(f.loadMs / 1000, 2) : 'n/a',
    use.appLoadMs === null ? 'n/a' : fixed(use.appLoadMs / 1000, 2),
  ];
}

export function renderTextIndexTable(rows: readonly TextIndexRow[]): string {
  return markdownTable(
    ['tenant', ...TEXT_INDEX_HEADER],
    rows.map(({ label, use }) => [label, ...textIndexCells(use)]),
  );
}

export const TEXT_INDEX_TEXT = [
  "Memory is `TenantTextIndex.bytes` (typed arrays plus the maps' per-entry costs) of the floor's copy,",
  'which holds what an API process holds. Load: the feed read page by page (`recall_text_index_page`,',
  '5,000 a page) and the index built, over one connection (floor copy); in the app, the cold tenant warmed',
  'by `TextIndexRegistry.warmVectors` when the vector leg runs in the API (the text index, then the',
  "tenant's vectors and, above exact-search size, their graph; recalls take the SQL text leg only until the",
  'text index is ready) or `warm` when it does not (app; through HTTP: from the first recall until one is',
  'served by the index).',
];

/** A measured share of recalls served by the index, with where it was measured. */
export interface IndexShareReading {
  readonly where: string;
  readonly share: number | null;
}

/**
 * The run's check that every measured recall was served by the index: a note naming each
 * measurement that fell short (some recalls ran in Postgres) or could not be read; none when all
 * were 100%.
 */
export function indexShareNotes(readings: readonly IndexShareReading[]): string[] {
  const short = readings.filter((r) => r.share !== null && r.share < 1);
  const unread = readings.filter((r) => r.share === null);
  const notes: string[] = [];
  if (short.length > 0)
    notes.push(
      `**Not every measured recall was served by the in-memory text index** (the rest ran in Postgres): ${short
        .map((r) => `${r.where} ${servedByIndex(r.share)}`)
        .join('; ')}.`,
    );
  if (unread.length > 0)
    notes.push(
      `The share of recalls served by the text index could not be read for: ${unread.map((r) => r.where).join('; ')}.`,
    );
  return notes;
}
