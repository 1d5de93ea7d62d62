import type { Command } from 'commander';
import { runMigrations } from '@app/persistence';
import type { CliContext } from '../cli-context';
import { json } from '../cli-output';

/** `migrate`: applies pending migrations (advisory-locked, so safe next to starting replicas). */
export function registerMigrateCommand(program: Command, context: CliContext): void {
  program
    .command('migrate')
    .description('apply pending database migrations')
    .action(async (_options: unknown, command: Command) => {
      const result = await runMigrations(await context.dataSource());
      if (command.optsWithGlobals<{ json?: boolean }>().json) {
        context.io.out(json({ applied: result.applied }));
      } else if (result.applied.length === 0) {
        context.io.out('No pending migrations; the database is up to date.\n');
      } else {
        context.io.out(
          `Applied ${result.applied.length} migration(s):\n${result.applied.map((m) => `  ${m}\n`).join('')}`,
        );
      }
    });
}
