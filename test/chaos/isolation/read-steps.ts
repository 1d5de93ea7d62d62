import type { Action, StepOf, Via } from './actions';
import { call, pick, type LaneContext, type Run } from './lane-context';
import type { Actor, MemoryModel } from './world';

type Step<K extends Action['kind']> = StepOf<K>;
type Listed = { memories?: { id: number }[]; truncated?: boolean };

const knownIds = (ctx: LaneContext, items: { id: number }[] | undefined) =>
  new Set((items ?? []).map((i) => i.id).filter((id) => ctx.world.byId.has(id)));

const sorted = (ids: Iterable<number>) => [...ids].sort((a, b) => a - b).join(',');

/** Reads one memory by id: 200 with its current text when the caller reads it, else 404. */
export async function getById(ctx: LaneContext, actor: Actor, m: MemoryModel, via: Via): Promise<void> {
  const reply = await call(
    ctx,
    actor,
    via,
    { method: 'GET', path: `/api/memories/${m.id}` },
    {
      tool: 'memory_get',
      args: { id: m.id },
    },
  );
  ctx.audit.scan(actor, reply, 'live');
  const expected = ctx.world.readsLive(actor, m) ? 'ok' : 'not_found';
  if (!ctx.audit.expect(actor, reply, expected, m) || expected !== 'ok') return;
  checkLinks(ctx, actor, m, reply.label, reply.body);
  const content = String((reply.body as { content?: string }).content ?? '');
  ctx.audit.check(
    `${reply.label} answers the memory's last acknowledged text`,
    content.includes(`${m.marker} v${m.version} `),
    () => `${ctx.world.describe(m)} v${m.version}: ${content}`,
  );
  ctx.audit.check(
    `${reply.label} shows a sensitive memory redacted, and only a sensitive one`,
    (m.secret !== null) === content.includes('[REDACTED:'),
    () => `${ctx.world.describe(m)}: ${content}`,
  );
}

/**
 * A memory's links name only memories the caller reads (so ids of others' private memories never
 * show), and every link made between it and a live memory the caller reads is there.
 */
function checkLinks(ctx: LaneContext, actor: Actor, m: MemoryModel, label: string, body: unknown): void {
  const { links_out = [], links_in = [] } = (body ?? {}) as Record<
    string,
    { src_id: number; dst_id: number }[]
  >;
  const listed = [...links_out, ...links_in];
  const hidden = listed
    .flatMap((l) => [l.src_id, l.dst_id])
    .map((id) => ctx.world.byId.get(id))
    .filter((other): other is MemoryModel => other !== undefined && !ctx.world.readsRaw(actor, other));
  ctx.tally.add('links checked', listed.length);
  if (hidden.length > 0) ctx.tally.add('leaks', hidden.length);
  ctx.audit.check(`${label} lists links to memories ${actor.name} may see only`, hidden.length === 0, () =>
    hidden.map((other) => ctx.world.describe(other)).join('; '),
  );
  const missing = [...ctx.world.links].filter((key) => {
    const [src, dst] = key.split(' ').map(Number);
    const other = ctx.world.byId.get(src === m.id ? dst : src);
    if ((src !== m.id && dst !== m.id) || !other || !ctx.world.readsLive(actor, other)) return false;
    return !listed.some((l) => l.src_id === src && l.dst_id === dst);
  });
  ctx.audit.check(`${label} lists the links ${actor.name} may see`, missing.length === 0, () =>
    missing.join('; '),
  );
}

export async function reveal(ctx: LaneContext, run: Run, actor: Actor, step: Step<'reveal'>): Promise<void> {
  const m = pick(run.memories, step.mem);
  if (!m) return;
  const reply = await call(
    ctx,
    actor,
    step.via,
    { method: 'POST', path: `/api/memories/${m.id}/secret`, body: {} },
    {
      tool: 'secret_get',
      args: { id: m.id },
    },
  );
  ctx.audit.scan(actor, reply, 'live', m);
  const expected = ctx.world.reveal(actor, m);
  if (!ctx.audit.expect(actor, reply, expected, m) || expected !== 'ok') return;
  const content = String((reply.body as { content?: string }).content ?? '');
  if (m.secret !== null) ctx.tally.add('secrets revealed');
  ctx.audit.check(
    `${reply.label} reveals the secret to ${actor.name}`,
    m.secret === null ? content.includes(`${m.marker} v${m.version} `) : content.includes(m.secret),
    () => `${ctx.world.describe(m)}: ${content}`,
  );
}

/** `check` compares with the caller's own memories only: a match must be the caller's. */
export async function checkContent(
  ctx: LaneContext,
  run: Run,
  actor: Actor,
  step: Step<'check'>,
): Promise<void> {
  const m = pick(run.memories, step.mem);
  if (!m) return;
  const content = `Note ${m.marker} v${m.version} from run ${run.word}: the build cache lives on the shared volume`;
  const reply = await call(
    ctx,
    actor,
    step.via,
    { method: 'POST', path: '/api/memories/check', body: { content } },
    {
      tool: 'memory_check',
      args: { content },
    },
  );
  ctx.audit.expect(actor, reply, 'ok');
  // The caller's own memories, and a teammate's team memory a store would fold into (one fact once per team).
  ctx.audit.scan(actor, reply, 'live');
}

/** Recall, list, shares, startup context, tags, export, the seed dump: no leak, and what must be there is. */
export async function readMany(
  ctx: LaneContext,
  run: Run,
  actor: Actor,
  step: Step<'recall' | 'list' | 'sharedWithMe' | 'myShares' | 'startup' | 'tags' | 'export' | 'seed'>,
): Promise<void> {
  const p = encodeURIComponent(run.project);
  const visible = run.memories.filter((m) => ctx.world.readsLive(actor, m));
  const routes = {
    recall: {
      rest: {
        method: 'POST',
        path: '/api/memories/recall',
        body: { context: run.word, project: run.project, limit: 100 },
      },
      mcp: { tool: 'memory_recall', args: { context: run.word, project: run.project, limit: 20 } },
      view: 'live' as const,
    },
    list: {
      rest: { method: 'GET', path: `/api/memories?project=${p}&limit=500` },
      mcp: { tool: 'memory_list', args: { project: run.project, limit: 100 } },
      view: 'live' as const,
    },
    sharedWithMe: {
      rest: { method: 'GET', path: '/api/memories/shared-with-me' },
      mcp: { tool: 'memory_shared_with_me', args: {} },
      view: 'live' as const,
    },
    myShares: {
      rest: { method: 'GET', path: '/api/memories/my-shares' },
      mcp: { tool: 'memory_my_shares', args: {} },
      view: 'raw' as const,
    },
    startup: {
      rest: { method: 'GET', path: `/api/context/startup?project=${p}` },
      mcp: { tool: 'startup_context', args: { project: run.project } },
      view: 'live' as const,
    },
    tags: { rest: { method: 'GET', path: '/api/tags' }, mcp: null, view: 'live' as const },
    export: {
      rest: { method: 'GET', path: `/api/memories/export?project=${p}` },
      mcp: null,
      view: 'own' as const,
    },
    seed: { rest: { method: 'GET', path: '/api/memories/sync' }, mcp: null, view: 'own' as const },
  }[step.kind];
  const reply = await call(ctx, actor, step.via, routes.rest, routes.mcp);
  ctx.audit.scan(actor, reply, routes.view);
  if (!ctx.audit.expect(actor, reply, 'ok')) return;
  const body = reply.body as Listed & { memories?: { id: number }[] };
  const items = Array.isArray(reply.body) ? (reply.body as { id: number }[]) : body?.memories;
  const got = knownIds(ctx, items);
  const complete = !body?.truncated;
  let want: MemoryModel[] | null = null;
  if (step.kind === 'list' && complete) want = visible;
  if (step.kind === 'recall' && reply.via === 'rest') want = visible;
  if (step.kind === 'export')
    want = run.memories.filter(
      (m) => m.owner === actor.user && m.tenant === actor.tenant && !m.deleted && !m.purged,
    );
  if (step.kind === 'seed') {
    want = [...ctx.world.byId.values()].filter(
      (m) => m.owner === actor.user && m.tenant === actor.tenant && !m.deleted && !m.purged,
    );
  }
  if (step.kind === 'sharedWithMe' && complete) {
    want = visible.filter(
      (m) => m.owner !== actor.user && m.visibility === 'private' && ctx.world.share(m, actor.user),
    );
    // Only a subset is required here: other runs' shared memories come too.
    const missing = want.filter((m) => !got.has(m.id));
    ctx.audit.check(`${reply.label} lists every memory shared with ${actor.name}`, missing.length === 0, () =>
      missing.map((m) => ctx.world.describe(m)).join('; '),
    );
    return;
  }
  if (want === null) return;
  const expectedIds = new Set(want.map((m) => m.id));
  const runIds =
    step.kind === 'seed' ? got : new Set([...got].filter((id) => run.memories.some((m) => m.id === id)));
  ctx.audit.check(
    `${reply.label} answers exactly what ${actor.name} may see`,
    sorted(runIds) === sorted(expectedIds),
    () =>
      `missing ${want
        .filter((m) => !runIds.has(m.id))
        .map((m) => ctx.world.describe(m))
        .join('; ')}; unexpected ${[...runIds].filter((id) => !expectedIds.has(id)).join(',')}`,
  );
}
