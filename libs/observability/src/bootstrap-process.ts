import { ConfigError, loadConfig, type AppConfig } from '@app/config';
import type { ServiceLogger } from './service-logger';

/** A started process: its logger, and how it stops (drain, then close). */
export interface RunningProcess {
  readonly logger: ServiceLogger;
  stop(): Promise<void>;
}

export interface ProcessSpec<T extends RunningProcess> {
  /** Why this process cannot run with this configuration (printed, exit 1); null: it can. */
  readonly refuse?: (config: AppConfig) => string | null;
  /** Checks the services the process needs and fails with a message naming the one that is down. */
  readonly preflight: (config: AppConfig) => Promise<void>;
  readonly start: (config: AppConfig) => Promise<T>;
  /** What to tell the operator once started (logged, or written to the terminal). */
  readonly started: (running: T, config: AppConfig) => void;
  /** How long a stop may take after SIGTERM/SIGINT before the process exits with 1 anyway. */
  readonly stopBudgetMs: (config: AppConfig) => number;
  /** The one line a failed start prints instead of a stack trace. */
  readonly failureMessage: (error: unknown) => string;
}

/**
 * The life of a server process (API, worker): configuration from the environment (a bad one is
 * one aggregated message and exit 1), preflight, start, and on SIGTERM or SIGINT a stop within
 * its budget (exit 0), else exit 1. A failed start prints one line and exits 1.
 */
export function bootstrapProcess<T extends RunningProcess>(spec: ProcessSpec<T>): void {
  void run(spec).catch((error: unknown) => {
    process.stderr.write(`${spec.failureMessage(error)}\n`);
    process.exit(1);
  });
}

async function run<T extends RunningProcess>(spec: ProcessSpec<T>): Promise<void> {
  let config: AppConfig;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  const refusal = spec.refuse?.(config) ?? null;
  if (refusal !== null) {
    process.stderr.write(`${refusal}\n`);
    process.exit(1);
  }
  await spec.preflight(config);
  const running = await spec.start(config);
  spec.started(running, config);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      running.logger.log(`${signal} received; draining`, 'Bootstrap');
      // Backstop if stopping hangs (e.g. a stuck database call): exit rather than linger.
      const backstop = setTimeout(() => process.exit(1), spec.stopBudgetMs(config)).unref();
      void running.stop().then(
        () => {
          clearTimeout(backstop);
          process.exit(0);
        },
        (error: unknown) => {
          running.logger.error(`shutdown failed: ${String(error)}`, 'Bootstrap');
          process.exit(1);
        },
      );
    });
  }
}
