import { Module } from '@nestjs/common';
import { MemoriesModule } from '@app/memories';
import { RecallModule } from '@app/recall';
import { SecretsModule } from '@app/secrets';
import { SessionsModule } from '@app/sessions';
import { TenancyModule } from '@app/tenancy';
import { CodeTools } from './code.tools';
import { McpHttpRoute } from './mcp-http.route';
import { McpServerFactory } from './mcp-server.factory';
import { MemoryLinkTools } from './memory-link.tools';
import { MemoryPinTools } from './memory-pin.tools';
import { MemorySearchTools } from './memory-search.tools';
import { MemoryTools } from './memory.tools';
import { SecretTools } from './secret.tools';
import { SessionTools } from './session.tools';
import { SharingTools } from './sharing.tools';

/** MCP over Streamable HTTP at `POST /mcp` (stateless; per-key auth; tools per domain). */
@Module({
  imports: [MemoriesModule, RecallModule, SecretsModule, SessionsModule, TenancyModule],
  providers: [
    MemoryTools,
    MemorySearchTools,
    SecretTools,
    SharingTools,
    MemoryLinkTools,
    MemoryPinTools,
    SessionTools,
    CodeTools,
    McpServerFactory,
    McpHttpRoute,
  ],
})
export class McpModule {}
