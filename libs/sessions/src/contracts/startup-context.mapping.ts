import type { StartupContext, StartupMemory, StartupSession } from '../domain/startup-context';
import type { StartupContextInput } from '../application/startup-context.use-case';
import type { StartupContextQuery } from './startup-context.schemas';

/** The one mapping between the startup context contract and its use case, for REST and MCP. */

export function toStartupContextInput(query: StartupContextQuery): StartupContextInput {
  return { project: query.project, budget: query.budget, tokens: query.tokens, branch: query.branch };
}

function presentMemory(memory: StartupMemory) {
  return {
    id: memory.id,
    content: memory.content,
    category: memory.category,
    importance: memory.importance,
    project: memory.project,
    owner: memory.owner,
    is_sensitive: memory.isSensitive,
    updated_at: memory.updatedAt,
    supersedes: [...memory.supersedes],
    ...(memory.pin ? { pin: memory.pin } : {}),
    ...(memory.code ? { code_state: memory.code.state, anchors: [...memory.code.anchors] } : {}),
  };
}

function presentSession(session: StartupSession) {
  return {
    id: session.id,
    agent: session.agent,
    project: session.project,
    owner: session.owner,
    summary: session.summary,
    started_at: session.startedAt,
    ended_at: session.endedAt,
  };
}

export function presentStartupContext(context: StartupContext) {
  return {
    project: context.project,
    budget: context.budget,
    tokens: context.tokens,
    text: context.text,
    estimated_tokens: context.estimatedTokens,
    sections: {
      pinned: context.sections.pinned.map(presentMemory),
      requested: context.sections.requested.map(presentMemory),
      important: context.sections.important.map(presentMemory),
      decisions: context.sections.decisions.map(presentMemory),
      outdated: context.sections.outdated.map(presentMemory),
      sessions: context.sections.sessions.map(presentSession),
    },
    truncated: context.truncated,
    omitted: context.omitted,
    left_out: {
      pinned: [...context.leftOut.pinned],
      requested: [...context.leftOut.requested],
      important: [...context.leftOut.important],
      decisions: [...context.leftOut.decisions],
      outdated: [...context.leftOut.outdated],
      sessions: [...context.leftOut.sessions],
    },
  };
}
