import type { Command } from 'commander';
import {
  parseInput,
  TenancyError,
  TenancyErrorCode,
  toTenantSettingsResponse,
  updateTenantSettingsBodySchema,
} from '@app/tenancy';
import type { CliContext } from '../cli-context';
import { json } from '../cli-output';

interface Globals {
  json?: boolean;
  tenant?: string;
}

const SWITCH: Record<string, boolean> = { on: true, true: true, off: false, false: false };

/** On or off, from a switch option's value. */
function switchValue(flag: string, value: string): boolean {
  const on = SWITCH[value.toLowerCase()];
  if (on === undefined) throw new TenancyError(TenancyErrorCode.InvalidInput, `${flag} must be on or off`);
  return on;
}

interface SettingsOptions {
  teamSessions?: string;
  adminPrivateAccess?: string;
  captureBranchScope?: string;
}

/**
 * `tenants settings [--team-sessions on|off] [--admin-private-access on|off] [--capture-branch-scope
 * on|off]`: the same use cases as
 * GET/PATCH /api/admin/settings.
 */
export function registerTenantsCommands(program: Command, context: CliContext): void {
  const tenants = program.command('tenants').description('manage tenant settings');

  tenants
    .command('settings')
    .description('show the settings of a tenant, or change them')
    .option(
      '--team-sessions <on|off>',
      "on: teammates read each other's sessions and session events (never change them); off: each user sees their own",
    )
    .option(
      '--admin-private-access <on|off>',
      "on: admin keys may read members' private memories, each request with an audited reason; off (default): they may not",
    )
    .option(
      '--capture-branch-scope <on|off>',
      'on (default): session capture on a feature branch stores memories scoped to that branch until it is merged',
    )
    .option('--tenant <slug>', 'tenant slug (default: DEFAULT_TENANT)')
    .action(async (options: SettingsOptions, command: Command) => {
      const globals = command.optsWithGlobals<Globals>();
      const { getTenantSettings, updateTenantSettings } = await context.useCases();
      const actor = await context.actor(globals.tenant);
      let settings;
      if (
        options.teamSessions === undefined &&
        options.adminPrivateAccess === undefined &&
        options.captureBranchScope === undefined
      ) {
        settings = await getTenantSettings.execute(actor);
      } else {
        const patch = parseInput(updateTenantSettingsBodySchema, {
          team_session_visibility:
            options.teamSessions === undefined
              ? undefined
              : switchValue('--team-sessions', options.teamSessions),
          admin_private_access:
            options.adminPrivateAccess === undefined
              ? undefined
              : switchValue('--admin-private-access', options.adminPrivateAccess),
          capture_branch_scope:
            options.captureBranchScope === undefined
              ? undefined
              : switchValue('--capture-branch-scope', options.captureBranchScope),
        });
        settings = await updateTenantSettings.execute(actor, patch);
      }
      const shown = toTenantSettingsResponse(settings);
      const onOff = (value: boolean) => (value ? 'on' : 'off');
      context.io.out(
        globals.json
          ? json(shown)
          : `Tenant "${actor.tenantSlug}": team session visibility ${onOff(shown.team_session_visibility)}, ` +
              `admin private access ${onOff(shown.admin_private_access)}, ` +
              `capture branch scope ${onOff(shown.capture_branch_scope)}\n`,
      );
    });
}
