import { Injectable } from '@nestjs/common';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { MemoryLinkTools } from './memory-link.tools';
import { MemoryPinTools } from './memory-pin.tools';
import { CodeTools } from './code.tools';
import { MemorySearchTools } from './memory-search.tools';
import { MemoryTools } from './memory.tools';
import type { McpToolDefinition } from './mcp-tool';
import { SecretTools } from './secret.tools';
import { SessionTools } from './session.tools';
import { SharingTools } from './sharing.tools';

export const MCP_SERVER_INFO = { name: 'memory-service', version: '0.1.0' } as const;

/** Shown to the agent once at initialisation: how the tools fit together. */
const INSTRUCTIONS = [
  'Shared team memory for coding agents.',
  'At the start of a session call startup_context (with the project you work in: its name or git remote URL).',
  'Before answering questions about the codebase, its decisions or conventions, call memory_recall (with project_boost set to that project).',
  'When you learn something worth keeping, call memory_check, then memory_store (ADD) or memory_update (UPDATE); skip NOOP.',
  'When the user says a stored memory is no longer true, call memory_correct with its id (as supersedes, or id) and the new fact; a teammate’s memory gets a proposal its owner reviews (memory_proposals, memory_review).',
  'When the user asks you to remember something, store it with the tag requested (the next startup context of the project shows it); to make a memory the first thing every session starts with, call memory_pin.',
  'Never put credentials in memory text on purpose; if one is needed later, secret_get reveals stored secrets.',
].join(' ');

/**
 * Builds a fresh McpServer per HTTP request (stateless mode): nothing survives between requests,
 * so any API replica can answer any call.
 */
@Injectable()
export class McpServerFactory {
  private readonly tools: readonly McpToolDefinition[];

  constructor(
    memoryTools: MemoryTools,
    searchTools: MemorySearchTools,
    secretTools: SecretTools,
    sharingTools: SharingTools,
    linkTools: MemoryLinkTools,
    pinTools: MemoryPinTools,
    sessionTools: SessionTools,
    codeTools: CodeTools,
  ) {
    this.tools = [
      ...memoryTools.tools,
      ...searchTools.tools,
      ...secretTools.tools,
      ...sharingTools.tools,
      ...linkTools.tools,
      ...pinTools.tools,
      ...sessionTools.tools,
      ...codeTools.tools,
    ];
  }

  create(): McpServer {
    const server = new McpServer(MCP_SERVER_INFO, {
      capabilities: { tools: {} },
      instructions: INSTRUCTIONS,
    });
    for (const tool of this.tools) tool.register(server);
    // Registering tools makes the SDK advertise `tools.listChanged`; a stateless server has no
    // session to notify, and its tool list never changes while one runs.
    server.server.registerCapabilities({ tools: { listChanged: undefined } });
    return server;
  }
}
