import type { StepOf } from './actions';
import type { Follower, LaneContext } from './lane-context';
import type { Actor } from './world';

type SyncPage = {
  memories?: { id: number; deleted_at: string | null }[];
  tombstones?: { id: number }[];
  next_cursor?: string;
  has_more?: boolean;
};

const PAGE = 200;
const MAX_PAGES = 40;
/** Followings of a lagging feed before a difference counts (about 5 s in all). */
const SETTLE_ATTEMPTS = 15;

const followerOf = (ctx: LaneContext, actor: Actor): Follower => {
  let follower = ctx.followers.get(actor.name);
  if (!follower) {
    follower = { cursor: null, copy: new Map() };
    ctx.followers.set(actor.name, follower);
  }
  return follower;
};

const syncPath = (cursor: string | null) =>
  cursor === null
    ? `/api/memories/sync?limit=${PAGE}`
    : `/api/memories/sync?cursor=${encodeURIComponent(cursor)}&limit=${PAGE}`;

/** Reads the actor's pages to the end, applying them; false when a page was refused. */
async function readToEnd(ctx: LaneContext, actor: Actor, follower: Follower): Promise<boolean> {
  for (let page = 0; page < MAX_PAGES; page++) {
    const reply = await ctx.io.rest(
      actor,
      'GET',
      syncPath(follower.cursor),
      undefined,
      'GET /api/memories/sync (cursor)',
    );
    ctx.tally.add('sync pages');
    ctx.audit.scan(actor, reply, 'raw');
    if (!ctx.audit.expect(actor, reply, 'ok')) return false;
    const body = reply.body as SyncPage;
    for (const m of body.memories ?? []) follower.copy.set(m.id, m.deleted_at !== null);
    for (const t of body.tombstones ?? []) follower.copy.delete(t.id);
    follower.cursor = body.next_cursor ?? follower.cursor;
    if (!body.has_more) return true;
  }
  return true;
}

/** How the copy differs from what the model says the actor reads (deleted or not). */
function differences(ctx: LaneContext, actor: Actor, follower: Follower): string[] {
  const wrong: string[] = [];
  for (const m of ctx.world.byId.values()) {
    if (m.tenant !== actor.tenant) {
      if (follower.copy.has(m.id)) wrong.push(`has another tenant's ${ctx.world.describe(m)}`);
      continue;
    }
    const expected = ctx.world.readsRaw(actor, m);
    const has = follower.copy.has(m.id);
    if (expected !== has) wrong.push(`${has ? 'has' : 'lacks'} ${ctx.world.describe(m)}`);
    else if (has && follower.copy.get(m.id) !== m.deleted)
      wrong.push(`deleted flag of ${ctx.world.describe(m)}`);
  }
  return wrong;
}

/**
 * Follows the actor's cursor to the end: every row of every page must be one the actor reads
 * (deleted or not), and the copy then holds exactly the memories the model says the actor reads,
 * soft-deleted where the model says so. A change shows in the feed once every write transaction
 * that began before it has finished (docs/sync.md), and other lanes write all the time, so the
 * copy may lag a moment: it is followed again for a few seconds before a difference counts.
 */
export async function follow(ctx: LaneContext, actor: Actor): Promise<void> {
  const follower = followerOf(ctx, actor);
  let wrong: string[] = [];
  for (let attempt = 0; attempt < SETTLE_ATTEMPTS; attempt++) {
    if (attempt > 0) {
      ctx.tally.add('sync feed lagged (followed again)');
      await new Promise((r) => setTimeout(r, 50 * attempt));
    }
    if (!(await readToEnd(ctx, actor, follower))) return;
    wrong = differences(ctx, actor, follower);
    if (wrong.length === 0) break;
  }
  ctx.audit.check(
    `sync copy of ${actor.name} holds exactly what ${actor.name} may see`,
    wrong.length === 0,
    () => wrong.slice(0, 5).join('; '),
  );
}

/**
 * Continues another actor's cursor: only the same user with the same reach (a second key of
 * theirs) may; anyone else gets 400 and nothing of the cursor's owner.
 */
export async function swapCursor(ctx: LaneContext, actor: Actor, step: StepOf<'syncSwap'>): Promise<void> {
  const owner = ctx.actors[step.from];
  const cursor = ctx.followers.get(owner.name)?.cursor;
  if (!cursor) return;
  const reply = await ctx.io.rest(
    actor,
    'GET',
    syncPath(cursor),
    undefined,
    'GET /api/memories/sync (swapped cursor)',
  );
  ctx.tally.add('swapped cursors tried');
  ctx.audit.scan(actor, reply, 'raw');
  const same = owner.tenant === actor.tenant && owner.user === actor.user && owner.admin === actor.admin;
  ctx.audit.expect(actor, reply, same ? 'ok' : 'bad_request');
}
