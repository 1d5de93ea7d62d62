import type { Command } from 'commander';
import {
  createUserBodySchema,
  parseInput,
  TenancyError,
  TenancyErrorCode,
  toUserResponse,
  type User,
} from '@app/tenancy';
import { DeleteUserUseCase, presentErasureReceipt } from '@app/memories';
import type { CliContext } from '../cli-context';
import { json, usersTable } from '../cli-output';
import { allPages } from '../paging';

interface Globals {
  json?: boolean;
  tenant?: string;
}

/** `users create|list|disable|enable|delete`: same use cases (and validation) as the admin REST routes. */
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
      const actor = await context.actor(globals.tenant);
      const list = (await allPages<User>((cursor) => listUsers.execute(actor, { cursor }))).map(
        toUserResponse,
      );
      context.io.out(globals.json ? json({ users: list }) : usersTable(list));
    });

  for (const [verb, disabled] of [
    ['disable', true],
    ['enable', false],
  ] as const) {
    users
      .command(`${verb} <user>`)
      .description(
        disabled
          ? 'disable a user (username or id): their keys answer 401 until enabled again; memories stay'
          : 'enable a disabled user: their unrevoked, unexpired keys work again',
      )
      .option('--tenant <slug>', 'tenant slug (default: DEFAULT_TENANT)')
      .action(async (user: string, _options: unknown, command: Command) => {
        const globals = command.optsWithGlobals<Globals>();
        const { changeUserStatus } = await context.useCases();
        const changed = toUserResponse(
          await changeUserStatus.execute(await context.actor(globals.tenant), { user, disabled }),
        );
        context.io.out(
          globals.json ? json(changed) : `${disabled ? 'Disabled' : 'Enabled'} user "${changed.username}".\n`,
        );
      });
  }

  users
    .command('delete <user>')
    .description('disable a user and erase their memory data (the user row, keys and audit log stay)')
    .option('--yes', 'confirm: the erasure cannot be undone')
    .option('--tenant <slug>', 'tenant slug (default: DEFAULT_TENANT)')
    .action(async (user: string, options: { yes?: boolean }, command: Command) => {
      const globals = command.optsWithGlobals<Globals>();
      if (options.yes !== true) {
        throw new TenancyError(
          TenancyErrorCode.InvalidInput,
          `deleting "${user}" erases their memories for good; run again with --yes to confirm`,
        );
      }
      const actor = await context.actor(globals.tenant);
      const deleted = await (await context.get(DeleteUserUseCase)).execute(actor, user);
      const shown = { user: toUserResponse(deleted.user), erasure: presentErasureReceipt(deleted.erasure) };
      context.io.out(
        globals.json
          ? json(shown)
          : `Deleted user "${shown.user.username}": disabled, ${shown.erasure.memories} memories and ` +
              `${shown.erasure.sessions} sessions erased.\n`,
      );
    });
}
