import type { IndexThroughputResult } from '../indexing/index-throughput';
import type { EventIngestResult } from '../sessions/event-ingest';
import type { StoreLatencyResult } from '../indexing/store-latency';
import type { RecallLatencyResult } from '../recall/recall-latency';
import type { VectorQualityResult } from '../recall/vector-quality';
import type { LatencySummary } from '../metrics';
import type { TeamRecallRow } from '../phases/team-recall-phase';
import { machineLine, type MachineInfo } from './machine';
import { renderIngestSection } from './ingest-report';
import { httpIndexShareReadings, httpSections } from './http-report';
import type { HttpResults } from '../phases/http-phase';
import { renderTeamSection } from './team-report';
import { count, fixed, markdownTable, ms, ratio, triple, verdict } from './markdown';
import type { TextIndexUse } from '../recall/floor-text-index';
import {
  floorPartsCell,
  indexShareNotes,
  RECALL_FLOOR_TEXT,
  renderTextIndexTable,
  servedByIndex,
  TEXT_INDEX_TEXT,
  type IndexShareReading,
  type TextIndexRow,
} from './recall-floor-report';

/** Targets from issue 3 ("Benchmarks"). */
export const TARGETS = {
  p50Ratio: 1.5,
  p99Ratio: 3,
  vectorRecallAt10: 0.95,
  throughputShare: 0.8,
  searchableP95Ms: 200,
} as const;

export interface RecallRow {
  readonly memories: number;
  /** `default`: the shipped VECTOR_EXACT_SCAN_MAX_ROWS; `hnsw`: threshold 0, every query uses the index. */
  readonly config: 'default' | 'hnsw';
  readonly latency: RecallLatencyResult;
  readonly quality: VectorQualityResult;
  /** VECTOR_RECALL.prepare on unseen texts (null when not wired). */
  readonly prepare: LatencySummary | null;
  readonly vectorLegWired: boolean;
  readonly textIndex: TextIndexUse;
}

export interface LoadRow {
  readonly memories: number;
  readonly embedMs: number;
  readonly insertMs: number;
  readonly indexBuildMs: number;
}

export interface BenchResults {
  /** `ingest`: only the event ingest run (`--ingest-only`). */
  readonly mode: 'full' | 'quick' | 'ingest';
  readonly startedAt: string;
  readonly durationS: number;
  readonly machine: MachineInfo;
  /** 1-minute load average before and after: the machine is shared, and contention shows here. */
  readonly loadAverage: { readonly before: number; readonly after: number };
  readonly model: { readonly id: string; readonly dimensions: number };
  readonly users: number;
  /** `--env` overrides the services ran with (empty: shipped defaults). */
  readonly overrides: Readonly<Record<string, string>>;
  readonly loads: readonly LoadRow[];
  readonly recall: readonly RecallRow[];
  /** One team reading one large visible set (null with `--team-size 0`). */
  readonly team: TeamRecallRow | null;
  readonly throughput: IndexThroughputResult | null;
  readonly store: StoreLatencyResult | null;
  /** Session event capture through HTTP (null with `--ingest-seconds 0`). */
  readonly ingest: EventIngestResult | null;
  /** REST and MCP through the built processes (null with `--without-http` or `--ingest-only`). */
  readonly http: HttpResults | null;
  readonly notes: readonly string[];
}

function planLabel(row: RecallRow): string {
  const { plans, exactFallbacks } = row.quality;
  const used = Object.entries(plans)
    .filter(([, n]) => n > 0)
    .map(([plan, n]) => (n === row.quality.queries ? plan : `${plan} ${n}`))
    .join(', ');
  const config = row.config === 'default' ? 'default threshold' : 'threshold 0';
  return `${used || 'none'} (${config}${exactFallbacks > 0 ? `, ${exactFallbacks} exact fallbacks` : ''})`;
}

export function renderBenchReport(r: BenchResults): string {
  const recallRows = r.recall.map((row) => {
    const p50 = row.latency.useCase.p50 / row.latency.floor.p50;
    const p99 = row.latency.useCase.p99 / row.latency.floor.p99;
    return [
      count(row.memories),
      planLabel(row),
      String(row.latency.useCase.count),
      triple(row.latency.useCase),
      triple(row.latency.floor),
      `${ratio(p50)} ${verdict(p50 <= TARGETS.p50Ratio)}`,
      `${ratio(p99)} ${verdict(p99 <= TARGETS.p99Ratio)}`,
      `${fixed(row.quality.recallAt10)} ${verdict(row.quality.recallAt10 >= TARGETS.vectorRecallAt10)}`,
    ];
  });
  const partRows = r.recall.map((row) => [
    count(row.memories),
    planLabel(row),
    floorPartsCell(row.latency.floorParts),
    `${ms(row.latency.sqlTextLeg.p50)} / ${ms(row.latency.sqlTextLeg.p99)}`,
    ms(row.latency.useCase.p50 - row.latency.floor.p50),
    row.prepare ? ms(row.prepare.p50) : 'n/a',
    ms(row.latency.useCaseCached.p50),
    fixed(row.latency.meanResults, 1),
    servedByIndex(row.latency.indexShare),
  ]);
  const sections = [
    `# Benchmark results (${r.mode})`,
    '',
    `Run ${r.startedAt}, ${r.durationS.toFixed(0)} s. Machine: ${machineLine(r.machine)}.`,
    `Load average (1 min) ${r.loadAverage.before.toFixed(2)} before, ${r.loadAverage.after.toFixed(2)} after: anything else running on the ${r.machine.cores} cores shows in the tails.`,
    `Model \`${r.model.id}\` (${r.model.dimensions}-d). ${r.users} users in one tenant, private memories spread evenly (1% each).`,
    Object.keys(r.overrides).length === 0
      ? 'Services ran with the shipped configuration defaults.'
      : `Configuration overrides: ${Object.entries(r.overrides)
          .map(([k, v]) => `\`${k}=${v}\``)
          .join(', ')}.`,
    "Vector recall@10 is measured on the floor's copy of the in-memory vector index, searched as recall searches",
    'it (its graph, or every readable vector for a small set), against the exact',
    'nearest rows of the same visible set (ties at the 10th distance count as correct).',
    '',
    '## Recall latency: hybrid `RecallMemoriesUseCase` vs its physical floor (limit 10, each leg k = 30)',
    '',
    ...RECALL_FLOOR_TEXT,
    '',
    markdownTable(
      [
        'memories',
        'vector plan',
        'queries',
        'use case p50 / p95 / p99 ms',
        'floor p50 / p95 / p99 ms',
        `p50 ratio (≤ ${TARGETS.p50Ratio}×)`,
        `p99 ratio (≤ ${TARGETS.p99Ratio}×)`,
        `vector recall@10 vs exact (≥ ${TARGETS.vectorRecallAt10})`,
      ],
      recallRows,
    ),
    '',
    "Where the time goes (ms, medians). The app's text index was loaded for the tenant before timing;",
    '"served by index" is the share of the timed recalls whose text leg it served (the app\'s',
    '`memsvc_recall_text_leg_total`). "Prepare" is the vector leg\'s query embedding through the app',
    '(registry, cache, micro-batcher, model) on unseen texts. The last timing repeats the same queries:',
    'their embeddings come from the query cache, and their data pages are warm, so it is indicative only.',
    '',
    markdownTable(
      [
        'memories',
        'vector plan',
        'floor: embed · index top-k · vector top-k · rows under RLS',
        'SQL text leg (fallback) p50 / p99',
        'use case − floor (p50)',
        'app query embedding (prepare, cache miss)',
        'use case, query cached (p50)',
        'results / query',
        'served by index',
      ],
      partRows,
    ),
    '',
    ...renderTeamSection(r.team, TARGETS),
    '',
    '## In-memory text index: memory and load time per tenant',
    '',
    ...TEXT_INDEX_TEXT,
    '',
    renderTextIndexTable(textIndexRows(r)),
    '',
    '## Indexing',
    '',
    renderIndexing(r),
    '',
    ...renderIngestSection(r.ingest),
    '',
    ...(r.http
      ? ['## Through the front door: REST and MCP against their floors', '', ...httpSections(r.http, '###')]
      : []),
    '## Data loading (not a target; for reading the run)',
    '',
    markdownTable(
      ['memories', 'embed s', 'insert s', 'HNSW build s'],
      r.loads.map((l) => [
        count(l.memories),
        fixed(l.embedMs / 1000, 1),
        fixed(l.insertMs / 1000, 1),
        fixed(l.indexBuildMs / 1000, 1),
      ]),
    ),
  ];
  const notes = [...r.notes, ...indexShareNotes(indexShareReadings(r))];
  if (r.http && r.http.reusedQueries > 0)
    notes.push(`${r.http.reusedQueries} HTTP recalls reused a text (they may have hit the query cache).`);
  if (notes.length > 0) sections.push('', '## Notes', '', ...notes.map((n) => `- ${n}`));
  return `${sections.join('\n')}\n`;
}

/** The in-process run's tenants, loaded afresh: the 100 users at each size, the team (HTTP shapes: their section). */
export function textIndexRows(r: Pick<BenchResults, 'recall' | 'team' | 'users'>): TextIndexRow[] {
  return [
    ...r.recall
      .filter((row) => row.config === 'default')
      .map((row) => ({ label: `${r.users} users × 1% of ${count(row.memories)}`, use: row.textIndex })),
    ...(r.team
      ? [{ label: `team of ${r.team.users}, ${count(r.team.memories)} visible`, use: r.team.textIndex }]
      : []),
  ];
}

/** Every measured share of recalls served by the text index: in process, at team size, through HTTP. */
export function indexShareReadings(r: Pick<BenchResults, 'recall' | 'team' | 'http'>): IndexShareReading[] {
  return [
    ...r.recall.map((row) => ({
      where: `recall at ${count(row.memories)} (${row.config})`,
      share: row.latency.indexShare,
    })),
    ...(r.team ? [{ where: 'team recall (use case and HTTP)', share: r.team.latency.indexShare }] : []),
    ...(r.http ? httpIndexShareReadings(r.http) : []),
  ];
}

function renderIndexing(r: BenchResults): string {
  const rows: string[][] = [];
  if (r.throughput) {
    const t = r.throughput;
    const share = t.pipelinePerSecond / t.rawPerSecond;
    // Embedding and writing one after the other, each at its raw rate.
    const floor = 1 / (1 / t.rawPerSecond + 1 / t.rawInsertPerSecond);
    rows.push([
      `worker embedding throughput (backlog of ${count(t.memories)} imported memories)`,
      `${fixed(t.pipelinePerSecond, 0)}/s through the job path vs ${fixed(t.rawPerSecond, 0)}/s raw embed() (batch ${t.rawBatchSize}) = ${(share * 100).toFixed(1)}%; ` +
        `raw vector INSERT (batch ${t.insertBatchSize}) ${fixed(t.rawInsertPerSecond, 0)}/s, so embed + insert ${fixed(floor, 0)}/s = ${((t.pipelinePerSecond / floor) * 100).toFixed(0)}% of that; ` +
        `cold drain ${fixed(t.coldDrainMs / 1000, 1)} s; the import itself ran at ${fixed(t.importPerSecond, 0)}/s`,
      `≥ ${TARGETS.throughputShare * 100}%`,
      verdict(share >= TARGETS.throughputShare),
    ]);
  } else {
    rows.push(['worker embedding throughput', 'not measured', `≥ ${TARGETS.throughputShare * 100}%`, '—']);
  }
  if (r.store) {
    const s = r.store;
    rows.push([
      `store → vector-searchable (${count(s.stores)} stores at ${fixed(s.achievedPerSecond, 0)}/s)`,
      `p50 ${ms(s.searchable.p50)} / p95 ${ms(s.searchable.p95)} / p99 ${ms(s.searchable.p99)} ms; ack p95 ${ms(s.ack.p95)} ms; ${s.missing} missing; poll every ${s.pollMs} ms`,
      `p95 ≤ ${TARGETS.searchableP95Ms} ms`,
      verdict(s.missing === 0 && s.searchable.p95 <= TARGETS.searchableP95Ms),
    ]);
  } else {
    rows.push(['store → vector-searchable', 'not measured', `p95 ≤ ${TARGETS.searchableP95Ms} ms`, '—']);
  }
  return markdownTable(['measure', 'result', 'target', 'verdict'], rows);
}
