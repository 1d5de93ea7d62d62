import type { Action, StepOf } from './actions';
import { call, callWithBody, pick, type LaneContext, type Run } from './lane-context';
import type { Actor, SessionModel } from './world';

type Step<K extends Action['kind']> = StepOf<K>;

/** Starts a session whose branch carries its marker; its notes and summary carry the marker too. */
export async function startSession(
  ctx: LaneContext,
  run: Run,
  actor: Actor,
  step: Step<'sessionStart'>,
): Promise<void> {
  const marker = `qz${ctx.lane}r${run.index}s${run.sessionsMade++}w`;
  const body = { agent: 'fuzz', project: run.project, git_branch: `feature/${marker}` };
  const route = { method: 'POST', path: '/api/sessions', tool: 'session_start' };
  const reply = await callWithBody(ctx, actor, step.via, route, body);
  const id = (reply.body as { id?: string } | undefined)?.id;
  // Registered before the scan: the answer names the new session's marker.
  if (reply.outcome === 'ok' && id) {
    const session: SessionModel = { id, marker, tenant: actor.tenant, owner: actor.user };
    ctx.world.addSession(session);
    run.sessions.push(session);
  }
  ctx.audit.scan(actor, reply, 'raw');
  ctx.audit.expect(actor, reply, 'ok');
}

/**
 * Notes, reads and ends a session of the run, whoever started it: its user may, an admin of its
 * tenant reads it (403 on writes), anyone else gets 404 and nothing of it.
 */
export async function useSession(
  ctx: LaneContext,
  run: Run,
  actor: Actor,
  step: Step<'sessionNote' | 'sessionRead' | 'sessionEnd'>,
): Promise<void> {
  const s = pick(run.sessions, step.sess);
  if (!s) return;
  const path = `/api/sessions/${s.id}`;
  const note = `remember that ${s.marker} builds reuse the shared cache volume`;
  const reply =
    step.kind === 'sessionNote'
      ? await call(
          ctx,
          actor,
          step.via,
          {
            method: 'POST',
            path: `${path}/events`,
            body: { events: [{ kind: 'note', payload: { text: note } }] },
          },
          { tool: 'session_note', args: { session_id: s.id, text: note } },
        )
      : step.kind === 'sessionEnd'
        ? await call(
            ctx,
            actor,
            step.via,
            { method: 'PATCH', path, body: { status: 'ended', summary: `Finished ${s.marker}` } },
            { tool: 'session_end', args: { session_id: s.id, summary: `Finished ${s.marker}` } },
          )
        : await ctx.io.rest(actor, 'GET', step.via === 'rest' ? path : `${path}/timeline`);
  ctx.audit.scan(actor, reply, 'live');
  ctx.audit.expect(
    actor,
    reply,
    ctx.world.sessionOutcome(actor, s, step.kind === 'sessionRead' ? 'read' : 'write'),
  );
}

export async function listSessions(ctx: LaneContext, actor: Actor): Promise<void> {
  const reply = await ctx.io.rest(actor, 'GET', '/api/sessions?team=true&limit=100');
  ctx.audit.scan(actor, reply, 'live');
  ctx.audit.expect(actor, reply, 'ok');
}
