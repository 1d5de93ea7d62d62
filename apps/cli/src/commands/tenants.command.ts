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

/** `tenants settings [--team-sessions on|off]`: the same use cases as GET/PATCH /api/admin/settings. */
export function registerTenantsCommands(program: Command, context: CliContext): void {
  const tenants = program.command('tenants').description('manage tenant settings');

  tenants
    .command('settings')
    .description('show the settings of a tenant, or change them')
    .option(
      '--team-sessions <on|off>',
      "on: teammates read each other's sessions and session events (never change them); off: each user sees their own",
    )
    .option('--tenant <slug>', 'tenant slug (default: DEFAULT_TENANT)')
    .action(async (options: { teamSessions?: string }, command: Command) => {
      const globals = command.optsWithGlobals<Globals>();
      const { getTenantSettings, updateTenantSettings } = await context.useCases();
      const actor = await context.actor(globals.tenant);
      let settings;
      if (options.teamSessions === undefined) {
        settings = await getTenantSettings.execute(actor);
      } else {
        const value = SWITCH[options.teamSessions.toLowerCase()];
        if (value === undefined) {
          throw new TenancyError(TenancyErrorCode.InvalidInput, '--team-sessions must be on or off');
        }
        const patch = parseInput(updateTenantSettingsBodySchema, { team_session_visibility: value });
        settings = await updateTenantSettings.execute(actor, patch);
      }
      const shown = toTenantSettingsResponse(settings);
      context.io.out(
        globals.json
          ? json(shown)
          : `Tenant "${actor.tenantSlug}": team session visibility ${shown.team_session_visibility ? 'on' : 'off'}\n`,
      );
    });
}
