import type { ChaosTally } from '@app/testing';
import { RUN_TAGS, type Action } from './actions';
import { Auditor } from './auditor';
import { pick, type Follower, type LaneContext, type Run } from './lane-context';
import { SHARE_TARGETS, usersByTenant } from './lane-setup';
import * as memory from './memory-steps';
import * as read from './read-steps';
import * as session from './session-steps';
import * as sync from './sync-steps';
import type { FuzzTransport } from './transport';
import type { Actor, World } from './world';

/**
 * One lane: two tenants of its own and the fast-check runs over them, one after another. Lanes
 * run side by side against the same API; their tenants never meet, so each lane's model is exact,
 * and a marker of one lane in another lane's answer is a cross-tenant leak.
 */
export class Lane {
  private readonly ctx: LaneContext;
  private runs = 0;

  constructor(
    lane: number,
    world: World,
    io: FuzzTransport,
    tally: ChaosTally,
    readonly actors: readonly Actor[],
  ) {
    this.ctx = {
      lane,
      world,
      io,
      audit: new Auditor(world, tally),
      tally,
      actors,
      users: usersByTenant(actors),
      followers: new Map<string, Follower>(),
    };
  }

  static readonly targets = SHARE_TARGETS.length;

  /** One fast-check run: fresh markers, project and tags, then the steps; throws on the first failed step. */
  async run(actions: readonly Action[]): Promise<void> {
    const index = this.runs++;
    const { lane } = this.ctx;
    const run: Run = {
      index,
      word: `qz${lane}r${index}w`,
      project: `iso-${lane}-${index}`,
      tags: Array.from({ length: RUN_TAGS }, (_, i) => `tg${lane}x${index}x${i}`),
      memories: [],
      sessions: [],
      made: 0,
      sessionsMade: 0,
    };
    this.ctx.audit.startRun();
    for (const [i, action] of actions.entries()) {
      await this.step(run, action);
      const failures = this.ctx.audit.failures;
      if (failures.length > 0) {
        throw new Error(
          `lane ${lane} run ${index} step ${i} (${JSON.stringify(action)}):\n${failures.join('\n')}`,
        );
      }
    }
  }

  private async step(run: Run, action: Action): Promise<void> {
    const { ctx } = this;
    const actor = ctx.actors[action.actor];
    switch (action.kind) {
      case 'create':
        await memory.create(ctx, run, actor, action);
        break;
      case 'update':
        await memory.update(ctx, run, actor, action);
        break;
      case 'visibility':
        await memory.visibility(ctx, run, actor, action);
        break;
      case 'delete':
      case 'restore':
      case 'purge':
        await memory.lifecycle(ctx, run, actor, action);
        break;
      case 'link':
        await memory.link(ctx, run, actor, action);
        break;
      case 'share':
      case 'unshare':
        await memory.share(ctx, run, actor, action);
        break;
      case 'shareTag':
      case 'unshareTag':
        await memory.shareTag(ctx, run, actor, action);
        break;
      case 'get': {
        const m = pick(run.memories, action.mem);
        if (m) await read.getById(ctx, actor, m, action.via);
        break;
      }
      case 'reveal':
        await read.reveal(ctx, run, actor, action);
        break;
      case 'check':
        await read.checkContent(ctx, run, actor, action);
        break;
      case 'recall':
      case 'list':
      case 'sharedWithMe':
      case 'myShares':
      case 'startup':
      case 'tags':
      case 'export':
      case 'seed':
        await read.readMany(ctx, run, actor, action);
        break;
      case 'sync':
        await sync.follow(ctx, actor);
        break;
      case 'syncSwap':
        await sync.swapCursor(ctx, actor, action);
        break;
      case 'sessionStart':
        await session.startSession(ctx, run, actor, action);
        break;
      case 'sessionList':
        await session.listSessions(ctx, actor);
        break;
      case 'sessionNote':
      case 'sessionRead':
      case 'sessionEnd':
        await session.useSession(ctx, run, actor, action);
        break;
    }
    await this.probe(run, action);
  }

  /** The step's memory (or the run's newest) read by id by the probing actors, in parallel. */
  private async probe(run: Run, action: Action): Promise<void> {
    const m = 'mem' in action ? pick(run.memories, action.mem) : run.memories.at(-1);
    if (!m || action.probes.length === 0) return;
    await Promise.all(
      action.probes.map((p, i) =>
        read.getById(this.ctx, this.ctx.actors[p], m, (i + action.actor) % 2 === 0 ? 'rest' : 'mcp'),
      ),
    );
  }
}
