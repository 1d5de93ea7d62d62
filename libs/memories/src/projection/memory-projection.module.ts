import { Module } from '@nestjs/common';
import { AgentContextRepository } from './adapters/agent-context.repository';
import { RenderAgentContextUseCase } from './application/render-agent-context.use-case';

const USE_CASES = [RenderAgentContextUseCase];

/**
 * The projection wing: a project's team knowledge rendered into the rule files coding agents read
 * (CLAUDE.md, AGENTS.md, a Cursor rule), for a CI job to commit. Reads only; needs the global
 * PersistenceModule.
 */
@Module({
  providers: [AgentContextRepository, ...USE_CASES],
  exports: USE_CASES,
})
export class MemoryProjectionModule {}
