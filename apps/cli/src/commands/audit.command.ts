import type { Command } from 'commander';
import { auditQuerySchema, parseInput, toAuditEntryResponse, type AuditEntryResponse } from '@app/tenancy';
import type { CliContext } from '../cli-context';
import { json, table } from '../cli-output';

interface Globals {
  json?: boolean;
}

interface AuditOptions {
  actor?: string;
  action?: string;
  target?: string;
  since?: string;
  limit?: string;
  cursor?: string;
  tenant?: string;
}

/** `audit`: the tenant's audit log, newest first; the same use case and filters as GET /api/admin/audit. */
export function registerAuditCommand(program: Command, context: CliContext): void {
  program
    .command('audit')
    .description("show a tenant's audit log, newest first")
    .option('--actor <user>', 'only actions of this user (username or id)')
    .option('--action <action>', 'only this action (api_key.revoke), or a prefix ending in * (api_key.*)')
    .option('--target <id>', 'only rows about this target id (a user, key, memory, job …)')
    .option('--since <iso>', 'only rows at or after this time, e.g. 2026-01-31T00:00:00Z')
    .option('--limit <n>', 'rows to show (default 50, at most 500)', '50')
    .option('--cursor <cursor>', 'continue where a previous listing stopped')
    .option('--tenant <slug>', 'tenant slug (default: DEFAULT_TENANT)')
    .action(async (options: AuditOptions, command: Command) => {
      const globals = command.optsWithGlobals<Globals>();
      const query = parseInput(auditQuerySchema, {
        actor: options.actor,
        action: options.action,
        target: options.target,
        since: options.since,
        limit: options.limit,
        cursor: options.cursor,
      });
      const { listAuditLog } = await context.useCases();
      const page = await listAuditLog.execute(await context.actor(options.tenant), query);
      const entries = page.items.map(toAuditEntryResponse);
      if (globals.json) {
        context.io.out(json({ entries, next_cursor: page.nextCursor }));
        return;
      }
      context.io.out(auditTable(entries));
      if (page.nextCursor) context.io.out(`More rows: --cursor ${page.nextCursor}\n`);
    });
}

function auditTable(entries: readonly AuditEntryResponse[]): string {
  if (entries.length === 0) return 'No audit rows.\n';
  return table(
    ['TIME', 'ACTOR', 'ACTION', 'TARGET', 'REQUEST'],
    entries.map((e) => [
      e.created_at,
      e.actor ?? `(${e.via ?? 'system'})`,
      e.action,
      e.target_id === null ? e.target_type : `${e.target_type} ${e.target_id}`,
      e.request_id ?? '',
    ]),
  );
}
