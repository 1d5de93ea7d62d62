import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import { RevealSecretUseCase, revealedSecretSchema } from '@app/memories';
import { memoryIdArg } from './mcp-schemas';
import { defineTool, type McpToolDefinition } from './mcp-tool';

/** Revealing secrets kept out of memory text. Every reveal is audited by the use case. */
@Injectable()
export class SecretTools {
  readonly tools: McpToolDefinition[];

  constructor(private readonly revealSecret: RevealSecretUseCase) {
    this.tools = [this.get()];
  }

  private get() {
    return defineTool({
      name: 'secret_get',
      title: 'Reveal a secret',
      description:
        'Reveal the original content of one of your sensitive memories (recall shows their text with the secret as [REDACTED:…] and the hint "[SENSITIVE - use secret_get(id=N)]") when the task really needs the credential. Needs a key with the secrets:read scope; every reveal is recorded in the audit log. Returns {id, content, category, source}.',
      // secrets:read is checked by the use case, which audits refusals as well as reveals.
      scope: 'memories:read',
      annotations: { readOnlyHint: true, idempotentHint: true },
      input: z.strictObject({ id: memoryIdArg }),
      output: revealedSecretSchema.extend({
        source: revealedSecretSchema.shape.source.describe(
          'which secret store held it; "plain" for a memory that holds no secret',
        ),
      }),
      run: async (principal, args) => {
        const secret = await this.revealSecret.execute(principal, args.id);
        const origin =
          secret.source === 'plain' ? 'it holds no secret' : `from ${secret.source}; this reveal was audited`;
        return { text: `Content of memory #${secret.id} (${origin}):\n${secret.content}`, data: secret };
      },
    });
  }
}
