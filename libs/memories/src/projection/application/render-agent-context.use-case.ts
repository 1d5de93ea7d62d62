import { Injectable } from '@nestjs/common';
import { READ_ONLY, TransactionRunner } from '@app/persistence';
import type { Principal } from '@app/tenancy';
import { AgentContextRepository } from '../adapters/agent-context.repository';
import { MAX_PROJECTED_MEMORIES, type AgentContextFormat } from '../domain/agent-context';
import { renderAgentContext, type RenderedAgentContext } from '../domain/agent-context-render';

export interface RenderAgentContextInput {
  /** A normalised project identity (`projectSchema`). */
  readonly project: string;
  readonly format: AgentContextFormat;
}

/**
 * A project's pinned memories, decisions, corrections and conventions as an agent rule file
 * (`GET /api/projects/:project/agent-context`, `memory-cli project render`): one read in the
 * caller's tenant, then a pure render. Only team-visible memories are rendered, so every teammate
 * (and a CI bot) gets the same file; another tenant's project renders empty.
 */
@Injectable()
export class RenderAgentContextUseCase {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly selection: AgentContextRepository,
  ) {}

  async execute(principal: Principal, input: RenderAgentContextInput): Promise<RenderedAgentContext> {
    const { memories, matched } = await this.tx.inTenant(
      principal,
      (tx) => this.selection.select(principal, tx, input.project, MAX_PROJECTED_MEMORIES),
      READ_ONLY,
    );
    return renderAgentContext({ project: input.project, format: input.format, memories, matched });
  }
}
