import type { Command } from 'commander';
import { createUserBodySchema, parseInput, toUserResponse } from '@app/tenancy';
import type { CliContext } from '../cli-context';
import { json, usersTable } from '../cli-output';

interface Globals {
  json?: boolean;
  tenant?: string;
}

/** `users create|list`: same use cases (and validation) as the admin REST routes. */
export function registerUsersCommands(program: Command, context: CliContext): void {
  const users = program.command('users').description('manage the users of a tenant');

  users
    .command('create <username>')
    .description('create a user (and the tenant, if it does not exist yet)')
    .option('--admin', 'make the user an administrator', false)
    .option('--display-name <name>', 'a human-readable name')
    .option('--tenant <slug>', 'tenant slug (default: DEFAULT_TENANT)')
    .action(async (username: string, options: { admin: boolean; displayName?: string }, command: Command) => {
      const globals = command.optsWithGlobals<Globals>();
      const input = parseInput(createUserBodySchema, {
        username,
        display_name: options.displayName,
        is_admin: options.admin,
      });
      const { createUser } = await context.useCases();
      const user = toUserResponse(await createUser.execute(await context.actor(globals.tenant, true), input));
      context.io.out(
        globals.json
          ? json(user)
          : `Created ${user.is_admin ? 'admin ' : ''}user "${user.username}" (id ${user.id}).\n` +
              `Next: keys create --user ${user.username} --scopes memories:read,memories:write\n`,
      );
    });

  users
    .command('list')
    .description('list the users of a tenant')
    .option('--tenant <slug>', 'tenant slug (default: DEFAULT_TENANT)')
    .action(async (_options: unknown, command: Command) => {
      const globals = command.optsWithGlobals<Globals>();
      const { listUsers } = await context.useCases();
      const list = (await listUsers.execute(await context.actor(globals.tenant))).map(toUserResponse);
      context.io.out(globals.json ? json({ users: list }) : usersTable(list));
    });
}
