import type { ChaosTally } from '@app/testing';
import type { Auditor } from './auditor';
import type { FuzzTransport, Reply } from './transport';
import type { Actor, MemoryModel, SessionModel, World } from './world';
import type { Via } from './actions';

/** One fast-check run of a lane: its own markers, project, tags, memories and sessions. */
export interface Run {
  readonly index: number;
  /** A word every memory of the run carries, so recall can ask for all of them. */
  readonly word: string;
  readonly project: string;
  readonly tags: readonly string[];
  readonly memories: MemoryModel[];
  readonly sessions: SessionModel[];
  made: number;
  sessionsMade: number;
}

/** One actor's offline copy, kept by following the sync cursors. */
export interface Follower {
  cursor: string | null;
  /** Memory id → whether the copy has it soft-deleted. */
  readonly copy: Map<number, boolean>;
}

export interface LaneContext {
  readonly lane: number;
  readonly world: World;
  readonly audit: Auditor;
  readonly tally: ChaosTally;
  readonly io: FuzzTransport;
  readonly actors: readonly Actor[];
  /** Usernames per tenant. */
  readonly users: ReadonlyMap<string, ReadonlySet<string>>;
  readonly followers: Map<string, Follower>;
}

/** A REST route or its MCP tool, as the step's `via` says. */
export function call(
  ctx: LaneContext,
  actor: Actor,
  via: Via,
  rest: { method: string; path: string; body?: unknown },
  mcp: { tool: string; args: Record<string, unknown> } | null,
): Promise<Reply> {
  if (via === 'mcp' && mcp) return ctx.io.mcp(actor, mcp.tool, mcp.args);
  return ctx.io.rest(actor, rest.method, rest.path, rest.body);
}

/** A route whose JSON body is also its tool's arguments. */
export function callWithBody(
  ctx: LaneContext,
  actor: Actor,
  via: Via,
  route: { method: string; path: string; tool: string },
  body: Record<string, unknown>,
): Promise<Reply> {
  return call(
    ctx,
    actor,
    via,
    { method: route.method, path: route.path, body },
    { tool: route.tool, args: body },
  );
}

/** The memory's text at its current version, with its secret when it has one. */
export function contentOf(
  m: Pick<MemoryModel, 'marker' | 'version'>,
  run: Run,
  secret: string | null,
): string {
  const head = `Note ${m.marker} v${m.version} from run ${run.word}`;
  return secret
    ? `${head}: the deploy token is ${secret}`
    : `${head}: the build cache lives on the shared volume`;
}

export const pick = <T>(list: readonly T[], n: number): T | undefined =>
  list.length === 0 ? undefined : list[n % list.length];
