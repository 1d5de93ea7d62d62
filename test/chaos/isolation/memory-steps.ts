import { RUN_TAGS, type Action, type StepOf } from './actions';
import { ghToken, SHARE_TARGETS } from './lane-setup';
import { call, callWithBody, contentOf, pick, type LaneContext, type Run } from './lane-context';
import type { Actor, MemoryModel, Outcome } from './world';

type Step<K extends Action['kind']> = StepOf<K>;

const tagsOf = (m: MemoryModel, run: Run, mask: number) => [
  m.marker,
  ...run.tags.filter((_, i) => i < RUN_TAGS && (mask & (1 << i)) !== 0),
];

export async function create(ctx: LaneContext, run: Run, actor: Actor, step: Step<'create'>): Promise<void> {
  const marker = `qz${ctx.lane}r${run.index}n${run.made++}w`;
  const secret = step.secret ? ghToken() : null;
  const draft = { marker, version: 0 };
  const tags = tagsOf({ ...draft } as MemoryModel, run, step.tagMask);
  const body = {
    content: contentOf(draft, run, secret),
    tags,
    visibility: step.visibility,
    project: run.project,
    importance: 0.5,
  };
  const route = { method: 'POST', path: '/api/memories', tool: 'memory_store' };
  const reply = await callWithBody(ctx, actor, step.via, route, body);
  ctx.audit.scan(actor, reply, 'raw');
  if (!ctx.audit.expect(actor, reply, 'ok')) return;
  const id = (reply.body as { id: number }).id;
  const memory: MemoryModel = {
    id,
    marker,
    tenant: actor.tenant,
    owner: actor.user,
    visibility: step.visibility,
    tags,
    deleted: false,
    purged: false,
    secret,
    version: 0,
    shares: new Map(),
  };
  ctx.world.addMemory(memory);
  run.memories.push(memory);
}

/** What an update answers: the rules for its kind of change, then 404 for a deleted memory. */
function updateOutcome(ctx: LaneContext, actor: Actor, m: MemoryModel, change: 'edit' | 'manage'): Outcome {
  const decided = ctx.world.decide(actor, m, change);
  if (decided !== 'allowed') return decided;
  return m.deleted ? 'not_found' : 'ok';
}

export async function update(ctx: LaneContext, run: Run, actor: Actor, step: Step<'update'>): Promise<void> {
  const m = pick(run.memories, step.mem);
  if (!m) return;
  let patch: Record<string, unknown>;
  let apply: () => void;
  // A secret goes under its owner's path: only the owner or an admin may put one in.
  let change: 'edit' | 'manage' = 'edit';
  if (step.what === 'content' || step.what === 'secret') {
    const secret = step.what === 'secret' ? ghToken() : null;
    if (secret) change = 'manage';
    patch = { content: contentOf({ marker: m.marker, version: m.version + 1 }, run, secret) };
    apply = () => {
      m.version++;
      ctx.world.setSecret(m, secret);
    };
  } else if (step.what === 'tags') {
    const tags = tagsOf(m, run, step.tagMask);
    patch = { tags };
    apply = () => void (m.tags = tags);
  } else {
    patch = { importance: 0.7 };
    apply = () => undefined;
  }
  let expected = updateOutcome(ctx, actor, m, change);
  if (expected === 'ok' && step.what === 'tags' && !ctx.world.keepsAfter(actor, m, patch.tags as string[])) {
    // An editor through a tag rule may not drop the tag that shares the memory with them.
    expected = 'forbidden';
  }
  const reply = await call(
    ctx,
    actor,
    step.via,
    { method: 'PUT', path: `/api/memories/${m.id}`, body: patch },
    {
      tool: 'memory_update',
      args: { id: m.id, ...patch },
    },
  );
  ctx.audit.scan(actor, reply, 'raw');
  if (ctx.audit.expect(actor, reply, expected, m) && expected === 'ok') apply();
}

export async function visibility(
  ctx: LaneContext,
  run: Run,
  actor: Actor,
  step: Step<'visibility'>,
): Promise<void> {
  const m = pick(run.memories, step.mem);
  if (!m) return;
  const expected = updateOutcome(ctx, actor, m, 'manage');
  const mcp =
    step.to === 'team'
      ? { tool: 'memory_promote', args: { id: m.id } }
      : { tool: 'memory_update', args: { id: m.id, visibility: step.to } };
  const reply = await call(
    ctx,
    actor,
    step.via,
    { method: 'PUT', path: `/api/memories/${m.id}`, body: { visibility: step.to } },
    mcp,
  );
  ctx.audit.scan(actor, reply, 'raw');
  if (ctx.audit.expect(actor, reply, expected, m) && expected === 'ok') m.visibility = step.to;
}

export async function lifecycle(
  ctx: LaneContext,
  run: Run,
  actor: Actor,
  step: Step<'delete' | 'restore' | 'purge'>,
): Promise<void> {
  const m = pick(run.memories, step.mem);
  if (!m) return;
  const decided = ctx.world.decide(actor, m, 'manage');
  let expected: Outcome = decided === 'allowed' ? 'ok' : decided;
  if (step.kind === 'purge' && expected === 'ok' && !m.deleted) expected = 'conflict';
  const routes = {
    delete: { rest: { method: 'DELETE', path: `/api/memories/${m.id}` }, tool: 'memory_delete' },
    restore: { rest: { method: 'POST', path: `/api/memories/${m.id}/restore` }, tool: 'memory_restore' },
    purge: { rest: { method: 'DELETE', path: `/api/memories/${m.id}/purge` }, tool: null },
  }[step.kind];
  const reply = await call(
    ctx,
    actor,
    step.via,
    routes.rest,
    routes.tool ? { tool: routes.tool, args: { id: m.id } } : null,
  );
  ctx.audit.scan(actor, reply, 'raw');
  if (!ctx.audit.expect(actor, reply, expected, m) || expected !== 'ok') return;
  if (step.kind === 'delete') m.deleted = true;
  if (step.kind === 'restore') m.deleted = false;
  if (step.kind === 'purge') m.purged = true;
}

export async function share(
  ctx: LaneContext,
  run: Run,
  actor: Actor,
  step: Step<'share' | 'unshare'>,
): Promise<void> {
  const m = pick(run.memories, step.mem);
  if (!m) return;
  const target = SHARE_TARGETS[step.target];
  const decided = ctx.world.decide(actor, m, 'manage');
  let expected: Outcome = decided === 'allowed' ? 'ok' : decided;
  if (step.kind === 'share' && expected === 'ok') {
    if (m.deleted || !ctx.users.get(actor.tenant)?.has(target)) expected = 'not_found';
    else if (target === m.owner) expected = 'bad_request';
  }
  const perm = step.kind === 'share' ? step.perm : undefined;
  const reply =
    step.kind === 'share'
      ? await call(
          ctx,
          actor,
          step.via,
          {
            method: 'POST',
            path: `/api/memories/${m.id}/share`,
            body: { shared_with: target, permission: perm },
          },
          { tool: 'memory_share', args: { id: m.id, shared_with: target, permission: perm } },
        )
      : await call(
          ctx,
          actor,
          step.via,
          { method: 'DELETE', path: `/api/memories/${m.id}/share/${target}` },
          { tool: 'memory_unshare', args: { id: m.id, shared_with: target } },
        );
  ctx.audit.scan(actor, reply, 'raw');
  if (!ctx.audit.expect(actor, reply, expected, m) || expected !== 'ok') return;
  if (perm) m.shares.set(target, perm);
  else m.shares.delete(target);
}

export async function shareTag(
  ctx: LaneContext,
  run: Run,
  actor: Actor,
  step: Step<'shareTag' | 'unshareTag'>,
): Promise<void> {
  const tag = run.tags[step.tag];
  const target = SHARE_TARGETS[step.target];
  let expected: Outcome = 'ok';
  if (step.kind === 'shareTag') {
    if (!ctx.users.get(actor.tenant)?.has(target)) expected = 'not_found';
    else if (target === actor.user) expected = 'bad_request';
  }
  const perm = step.kind === 'shareTag' ? step.perm : undefined;
  const body = { tag, shared_with: target, ...(perm ? { permission: perm } : {}) };
  const route =
    step.kind === 'shareTag'
      ? { method: 'POST', path: '/api/memories/share-tag', tool: 'memory_share_tag' }
      : { method: 'DELETE', path: '/api/memories/share-tag', tool: 'memory_unshare_tag' };
  const reply = await callWithBody(ctx, actor, step.via, route, body);
  ctx.audit.scan(actor, reply, 'raw');
  if (!ctx.audit.expect(actor, reply, expected) || expected !== 'ok') return;
  if (ctx.users.get(actor.tenant)?.has(target)) {
    ctx.world.setTagRule(actor.tenant, actor.user, tag, target, perm ?? null);
  }
}

/** Links two memories of the run, whoever owns them (see-also or part-of). */
export async function link(ctx: LaneContext, run: Run, actor: Actor, step: Step<'link'>): Promise<void> {
  const src = pick(run.memories, step.mem);
  const dst = pick(run.memories, step.to);
  if (!src || !dst || src === dst) return;
  const expected = ctx.world.linkOutcome(actor, src, dst, step.type);
  const body = { target_id: dst.id, link_type: step.type };
  const reply = await call(
    ctx,
    actor,
    step.via,
    { method: 'POST', path: `/api/memories/${src.id}/links`, body },
    { tool: 'memory_link', args: { id: src.id, ...body } },
  );
  ctx.audit.scan(actor, reply, 'raw');
  if (ctx.audit.expect(actor, reply, expected, src) && expected === 'ok') {
    ctx.world.links.add(`${src.id} ${dst.id} ${step.type}`);
  }
}
