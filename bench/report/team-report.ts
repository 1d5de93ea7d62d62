import type { TeamRecallRow } from '../phases/team-recall-phase';
import { count, fixed, markdownTable, ms, ratio, triple, verdict } from './markdown';
import { floorPartsCell, servedByIndex } from './recall-floor-report';
import { renderTeamDisk, renderTeamEndpoints, renderTeamMemory } from './team-footprint-report';

/** The team-size section of the report: recall through the use case and HTTP against the floor. */
export function renderTeamSection(
  team: TeamRecallRow | null,
  targets: { readonly p50Ratio: number; readonly p99Ratio: number; readonly vectorRecallAt10: number },
): string[] {
  if (!team) return ['## Recall at team size', '', 'Not run (`--team-size 0`).'];
  const l = team.latency;
  const plan = [
    ...Object.entries(team.plans)
      .filter(([, n]) => n > 0)
      .map(([name, n]) => `${name} ${n}`),
    `${team.quality.exactFallbacks} exact fallbacks in the recall@10 run`,
  ].join(', ');
  const row = (path: string, timing: typeof l.useCase, floor: typeof l.floor) => {
    const p50 = timing.p50 / floor.p50;
    const p99 = timing.p99 / floor.p99;
    return [
      path,
      String(timing.count),
      triple(timing),
      triple(floor),
      `${ratio(p50)} ${verdict(p50 <= targets.p50Ratio)}`,
      `${ratio(p99)} ${verdict(p99 <= targets.p99Ratio)}`,
    ];
  };
  return [
    '## Recall at team size: one team, every member reads the whole team',
    '',
    `${count(team.memories)} team-visible memories owned evenly by ${team.users} members of one tenant;`,
    `each member's visible set is ${count(team.visible)} rows (vector plan per query: ${plan || 'none'}).`,
    "The use case and HTTP (`POST /api/memories/recall` with the member's key, limit 10) each run their own",
    'unseen queries (the query cache is keyed by text), and each is compared with the physical floor (as above) on',
    "its own texts. The app's text index was loaded for the team before timing.",
    '',
    markdownTable(
      [
        'path',
        'queries',
        'p50 / p95 / p99 ms',
        'floor p50 / p95 / p99 ms',
        `p50 ratio (≤ ${targets.p50Ratio}×)`,
        `p99 ratio (≤ ${targets.p99Ratio}×)`,
      ],
      [row('use case', l.useCase, l.floor), row('HTTP', l.http, l.floorHttp)],
    ),
    '',
    markdownTable(
      [
        'floor: embed · index top-k · vector top-k · rows under RLS',
        'SQL text leg (fallback) p50 / p99',
        'served by index',
        'plan sizing, first recall per member (p50 / p99)',
        'results / query (use case, HTTP)',
        `vector recall@10 vs exact (≥ ${targets.vectorRecallAt10})`,
        'load: embed / insert / HNSW build s',
      ],
      [
        [
          floorPartsCell(l.floorParts),
          `${ms(l.sqlTextLeg.p50)} / ${ms(l.sqlTextLeg.p99)} (${l.sqlTextLeg.count} queries)`,
          servedByIndex(l.indexShare),
          `${ms(team.sizing.p50)} / ${ms(team.sizing.p99)}`,
          `${fixed(l.meanResults, 1)}, ${fixed(l.httpMeanResults, 1)}`,
          `${fixed(team.quality.recallAt10)} ${verdict(team.quality.recallAt10 >= targets.vectorRecallAt10)} (${team.quality.queries} queries)`,
          `${fixed(team.load.embedMs / 1000, 1)} / ${fixed(team.load.insertMs / 1000, 1)} / ${fixed(team.load.indexBuildMs / 1000, 1)}`,
        ],
      ],
    ),
    ...(team.endpoints ? ['', ...renderTeamEndpoints(team.endpoints)] : []),
    ...(team.disk ? ['', ...renderTeamDisk(team.disk)] : []),
    ...(team.endpoints ? ['', ...renderTeamMemory(team.endpoints)] : []),
  ];
}
