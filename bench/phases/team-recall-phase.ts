import { type VectorPlan } from '@app/recall/testing';
import { type Principal } from '@app/tenancy';
import { generateMemories, generateQueries } from '../corpus/memory-generator';
import { bulkLoadMemories, withVectorIndexesRebuilt } from '../harness/bulk-loader';
import type { RecallWiring } from '../harness/recall-wiring';
import { createBenchKeys, createBenchTenant } from '../harness/bench-tenant';
import { HttpRecallClient } from '../recall/http-recall';
import { type TimedQuery } from '../recall/recall-latency';
import { measureTeamRecallLatency, type TeamRecallLatency } from '../recall/team-recall-latency';
import { type VectorQualityResult } from '../recall/vector-quality';
import type { LoadRow } from '../report/bench-report';
import type { BenchContext } from './bench-context';
import { createFloor, planLookup, vectorQuality, warmAppTextIndex } from './phase-tools';
import type { TextIndexUse } from '../recall/floor-text-index';
import { summariseLatencies, type LatencySummary } from '../metrics';
import { measureDiskUse, type DiskUse } from '../harness/footprint';
import { measureTeamEndpoints, type TeamEndpoints } from '../http/team-endpoints';

/** Members of the team; each owns 1/TEAM_USERS of its memories and reads all of them. */
export const TEAM_USERS = 20;

export interface TeamRecallRow {
  readonly memories: number;
  readonly users: number;
  /** Rows one member may read (counted as the app role), i.e. what recall searches. */
  readonly visible: number;
  readonly load: LoadRow;
  readonly plans: Readonly<Record<VectorPlan, number>>;
  /**
   * The bounded count that sizes a member's set, timed on each member's first recall (as the app
   * role): paid once a minute per member, then remembered (LargeSetMemo), so not in the latencies.
   */
  readonly sizing: LatencySummary;
  readonly latency: TeamRecallLatency;
  readonly quality: VectorQualityResult;
  readonly textIndex: TextIndexUse;
  /** What the database holds on disk right after the load (absent in results of older runs). */
  readonly disk?: DiskUse;
  /** List, get, sync and store through the built API, and each process's memory (null: not run). */
  readonly endpoints?: TeamEndpoints | null;
}

/** The loaded team, for the HTTP run that follows (not part of the report: it holds keys). */
export interface LoadedTeam {
  readonly principals: readonly Principal[];
  /** user id → plaintext API key */
  readonly keys: ReadonlyMap<string, string>;
}

export interface TeamRecallOptions {
  readonly memories: number;
  readonly wiring: RecallWiring;
  /** The running API's base URL, for the HTTP runs. */
  readonly apiUrl: string;
  readonly queries: number;
  readonly warmup: number;
  /** Queries whose vector leg is compared with an exact scan of the ~whole team (costly each). */
  readonly qualityQueries: number;
  /** Queries on which the Postgres text leg (the fallback) is timed alone (costly each at team size). */
  readonly sqlTextQueries: number;
  /** Timed seconds per endpoint cell of the built-process run after recall (0 skips it). */
  readonly endpointSeconds: number;
  /** Called before the built processes start (they bring their own worker). */
  readonly beforeEndpoints: () => Promise<void>;
}

/**
 * The other data shape: one team whose members all read one large set of team-visible memories.
 * Loads it (in a tenant of its own, embedded by the real model, HNSW rebuilt), then times recall
 * through the use case and through HTTP against the raw floor, and the vector leg's recall@10.
 */
export async function runTeamRecallPhase(
  ctx: BenchContext,
  options: TeamRecallOptions,
): Promise<{ row: TeamRecallRow; team: LoadedTeam }> {
  const { wiring } = options;
  const principals = await createBenchTenant(ctx.pg, { slug: 'bench-team', users: TEAM_USERS });
  const keys = await createBenchKeys(ctx.pg, principals);
  ctx.log(`team: loading ${options.memories} team-visible memories for ${TEAM_USERS} members`);
  const embedder = await wiring.embedders.get(ctx.active.id);
  const { result, rebuildMs } = await withVectorIndexesRebuilt(
    ctx.pg,
    () =>
      bulkLoadMemories(ctx.pg, {
        memories: generateMemories({ count: options.memories, users: TEAM_USERS, seed: 20260101 }),
        principals,
        embedder,
        model: ctx.active,
        visibility: 'team',
      }),
    ctx.services,
  );
  const disk = await measureDiskUse(ctx.pg, principals[0].tenantId);
  const visible = await wiring.tx.inTenant(principals[0], async (tx) => {
    const { rows } = await tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM memories`);
    return rows[0].n;
  });

  const { pairs, sizingMs } = await timedPairs(ctx, wiring, principals, options.warmup + options.queries);
  const plans: Record<VectorPlan, number> = { exact: 0, hnsw: 0 };
  for (const [a] of pairs.slice(options.warmup)) plans[a.plan] += 1;
  const appLoadMs = await warmAppTextIndex(ctx, wiring, principals[0]);
  const floor = await createFloor(ctx, wiring);
  ctx.log(`team: recall latency, ${options.queries} queries each through the use case and HTTP`);
  const latency = await measureTeamRecallLatency({
    recall: wiring.recall,
    http: new HttpRecallClient(options.apiUrl, keys),
    floor,
    textLegCounts: () => wiring.textLegCounts(),
    sqlTextQueries: options.sqlTextQueries,
    warmup: pairs.slice(0, options.warmup),
    queries: pairs.slice(options.warmup),
  });
  ctx.log(`team: vector leg recall@10 vs exact over the team (${options.qualityQueries} queries)`);
  const quality = await vectorQuality(
    ctx,
    wiring,
    pairs.slice(options.warmup, options.warmup + options.qualityQueries).map(([a]) => a),
  );
  const endpoints =
    options.endpointSeconds > 0
      ? await measureTeamEndpoints(ctx, wiring, {
          principals,
          keys,
          label: `team of ${TEAM_USERS}, ${options.memories.toLocaleString('en-US')} visible`,
          seconds: options.endpointSeconds,
          beforeStart: options.beforeEndpoints,
        })
      : null;
  const row: TeamRecallRow = {
    memories: options.memories,
    users: TEAM_USERS,
    visible,
    load: {
      memories: options.memories,
      embedMs: result.embedMs,
      insertMs: result.insertMs,
      indexBuildMs: rebuildMs,
    },
    plans,
    sizing: summariseLatencies(sizingMs),
    latency,
    quality,
    textIndex: { appLoadMs, floor: ctx.floorTexts.loadOf(principals[0].tenantId) ?? null },
    disk,
    endpoints,
  };
  return { row, team: { principals, keys } };
}

/** `count` pairs of unseen query texts, each pair from one member, with the plan the repository picks. */
async function timedPairs(
  ctx: BenchContext,
  wiring: RecallWiring,
  principals: readonly Principal[],
  count: number,
): Promise<{ pairs: [TimedQuery, TimedQuery][]; sizingMs: number[] }> {
  const generated = generateQueries({
    count: count * 2,
    users: principals.length,
    seed: 77,
    exclude: ctx.usedQueries,
  });
  generated.forEach((q) => ctx.usedQueries.add(q.text));
  const { planOf, sizingMs } = planLookup(ctx, wiring);
  const timed = async (q: { owner: number; text: string }): Promise<TimedQuery> => {
    const principal = principals[q.owner];
    const plan = await planOf(principal);
    return { principal, text: q.text, plan };
  };
  const pairs: [TimedQuery, TimedQuery][] = [];
  for (let i = 0; i + 1 < generated.length; i += 2) {
    const a = await timed(generated[i]);
    // Both texts of a pair go to the same member, so the two paths search the same visible set.
    pairs.push([a, await timed({ owner: generated[i].owner, text: generated[i + 1].text })]);
  }
  return { pairs, sizingMs };
}
