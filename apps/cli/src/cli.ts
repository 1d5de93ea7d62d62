import { Command, CommanderError } from 'commander';
import { ConfigError, loadConfig, type AppConfig } from '@app/config';
import { DomainError } from '@app/kernel';
import { TenancyError, TenancyErrorCode } from '@app/tenancy';
import { CliContext, CliUsageError, type CliIo } from './cli-context';
import { registerAuditCommand } from './commands/audit.command';
import { registerEmbeddingsCommands } from './commands/embeddings.command';
import { registerJobsCommands } from './commands/jobs.command';
import { registerKeysCommands } from './commands/keys.command';
import { registerWebhooksCommands } from './commands/webhooks.command';
import { registerMigrateCommand } from './commands/migrate.command';
import { registerProjectCommands } from './commands/project.command';
import { registerSecretsCommands } from './commands/secrets.command';
import { registerTenantsCommands } from './commands/tenants.command';
import { registerTransferCommands } from './commands/transfer.command';
import { registerUsersCommands } from './commands/users.command';

export interface RunCliOptions {
  readonly io?: CliIo;
  /** Defaults to validating process.env through @app/config. */
  readonly loadConfig?: () => AppConfig;
  /** A context made beforehand (its io and config are used instead of the two above); closed at the end. */
  readonly context?: CliContext;
}

/** Exit codes: 0 success, 1 failure (not found, exists, config, database), 2 invalid input or usage. */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

const STD_IO: CliIo = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  errIsTTY: process.stderr.isTTY === true,
};

export function buildProgram(context: CliContext): Command {
  const program = new Command('memory-cli')
    .description(
      'Operate the memory service: migrations, users, API keys, webhooks, tenant settings, the audit log, jobs, embedding models and the agent rule files of projects.',
    )
    .option('--json', 'print machine-readable JSON')
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ writeOut: (s) => context.io.out(s), writeErr: (s) => context.io.err(s) });
  registerMigrateCommand(program, context);
  registerUsersCommands(program, context);
  registerKeysCommands(program, context);
  registerWebhooksCommands(program, context);
  registerTenantsCommands(program, context);
  registerAuditCommand(program, context);
  registerJobsCommands(program, context);
  registerEmbeddingsCommands(program, context);
  registerSecretsCommands(program, context);
  registerTransferCommands(program, context);
  registerProjectCommands(program, context);
  // Subcommands inherit exitOverride/output settings only when set on them too.
  for (const command of allCommands(program)) {
    command
      .exitOverride()
      .configureOutput({ writeOut: (s) => context.io.out(s), writeErr: (s) => context.io.err(s) });
  }
  return program;
}

/** Runs one CLI invocation and returns its exit code (never calls process.exit). */
export async function runCli(argv: readonly string[], options: RunCliOptions = {}): Promise<number> {
  const context =
    options.context ?? new CliContext(options.io ?? STD_IO, options.loadConfig ?? (() => loadConfig()));
  const program = buildProgram(context);
  try {
    if (argv.length === 0) {
      program.outputHelp();
      return EXIT_USAGE;
    }
    await program.parseAsync([...argv], { from: 'user' });
    return context.checkFailed ? EXIT_FAILURE : EXIT_OK;
  } catch (error) {
    return reportError(context.io, error);
  } finally {
    await context.close();
  }
}

function reportError(io: CliIo, error: unknown): number {
  if (error instanceof CommanderError) {
    // Commander already printed its message (or the help text).
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return EXIT_OK;
    return error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
  }
  if (error instanceof TenancyError) {
    io.err(`error: ${error.message}\n`);
    return error.code === TenancyErrorCode.InvalidInput ? EXIT_USAGE : EXIT_FAILURE;
  }
  if (error instanceof DomainError && (error.kind === 'invalid' || error.kind === 'bad_request')) {
    io.err(`error: ${error.message}\n`);
    return EXIT_USAGE;
  }
  if (error instanceof ConfigError || error instanceof CliUsageError) {
    io.err(`error: ${error.message}\n`);
    return EXIT_FAILURE;
  }
  io.err(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  return EXIT_FAILURE;
}

function allCommands(command: Command): Command[] {
  return command.commands.flatMap((child) => [child, ...allCommands(child)]);
}
