import type { Command } from 'commander';
import {
  createApiKeyBodySchema,
  listApiKeysQuerySchema,
  parseInput,
  toApiKeyResponse,
  toCreatedApiKeyResponse,
  toRotatedApiKeyResponse,
  type ApiKeySummary,
} from '@app/tenancy';
import type { CliContext } from '../cli-context';
import { json, keysTable } from '../cli-output';
import { allPages } from '../paging';

interface Globals {
  json?: boolean;
  tenant?: string;
}

const TENANT_OPTION = ['--tenant <slug>', 'tenant slug (default: DEFAULT_TENANT)'] as const;

/** `keys create|list|rotate|revoke`: same use cases (and validation) as the admin REST routes. */
export function registerKeysCommands(program: Command, context: CliContext): void {
  const keys = program.command('keys').description('manage API keys');

  keys
    .command('create')
    .description('create an API key for a user; the key is printed once')
    .requiredOption('--user <username>', 'username or user id')
    .option('--scopes <list>', 'comma-separated scopes (default: all member scopes, without admin)')
    .option('--name <name>', 'a label to recognise the key by')
    .option('--expires-at <iso>', 'expiry as an ISO-8601 date-time, e.g. 2030-01-31T00:00:00Z')
    .option(...TENANT_OPTION)
    .action(
      async (
        options: { user: string; scopes?: string; name?: string; expiresAt?: string },
        command: Command,
      ) => {
        const globals = command.optsWithGlobals<Globals>();
        const input = parseInput(createApiKeyBodySchema, {
          name: options.name,
          scopes: options.scopes,
          expires_at: options.expiresAt,
        });
        const { createApiKey } = await context.useCases();
        const actor = await context.actor(globals.tenant);
        const created = toCreatedApiKeyResponse(
          await createApiKey.execute(actor, { ...input, user: options.user }),
        );
        context.io.out(
          globals.json
            ? json(created)
            : `Created key ${created.id} for "${created.username}" (scopes: ${created.scopes.join(', ')}; ` +
                `expires: ${created.expires_at ?? 'never'}).\nStore it now, it is not shown again:\n\n` +
                `${created.key}\n\n`,
        );
      },
    );

  keys
    .command('list')
    .description('list API keys (never the keys themselves)')
    .option('--user <username>', 'only this user (username or id)')
    .option(...TENANT_OPTION)
    .action(async (options: { user?: string }, command: Command) => {
      const globals = command.optsWithGlobals<Globals>();
      const query = parseInput(listApiKeysQuerySchema, { user: options.user });
      const { listApiKeys } = await context.useCases();
      const actor = await context.actor(globals.tenant);
      const now = new Date();
      const keys = await allPages<ApiKeySummary>((cursor) =>
        listApiKeys.execute(actor, { ...query, cursor }),
      );
      const list = keys.map((k) => toApiKeyResponse(k, now));
      context.io.out(globals.json ? json({ keys: list }) : keysTable(list));
    });

  keys
    .command('rotate <key>')
    .description(
      'replace a key (id or prefix, see keys list) with a new one; the old one works for KEY_ROTATION_GRACE_SECONDS more',
    )
    .option(...TENANT_OPTION)
    .action(async (keyId: string, _options: unknown, command: Command) => {
      const globals = command.optsWithGlobals<Globals>();
      const { rotateApiKey } = await context.useCases();
      const rotated = toRotatedApiKeyResponse(
        await rotateApiKey.execute(await context.actor(globals.tenant), { keyId }),
      );
      context.io.out(
        globals.json
          ? json(rotated)
          : `Rotated key ${rotated.previous.prefix} of "${rotated.username}": the old key works until ` +
              `${rotated.previous.expires_at}.\nNew key ${rotated.id}; store it now, it is not shown again:\n\n` +
              `${rotated.key}\n\n`,
      );
    });

  keys
    .command('revoke <key>')
    .description('revoke an API key by id or by the prefix keys list shows')
    .option(...TENANT_OPTION)
    .action(async (keyId: string, _options: unknown, command: Command) => {
      const globals = command.optsWithGlobals<Globals>();
      const { revokeApiKey } = await context.useCases();
      const key = toApiKeyResponse(
        await revokeApiKey.execute(await context.actor(globals.tenant), { keyId }),
      );
      context.io.out(
        globals.json
          ? json(key)
          : `Revoked key ${key.id} (${key.prefix}) of "${key.username}" at ${key.revoked_at}.\n`,
      );
    });
}
