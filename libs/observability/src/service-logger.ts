import { Injectable, type LoggerService } from '@nestjs/common';
import { Logger } from 'nestjs-pino';

/**
 * Contexts of Nest's own start-up lines ("AppModule dependencies initialized", "Mapped {/api/…,
 * GET} route", "Nest application successfully started"): dozens of lines per start, useful only
 * when debugging the wiring, so they are logged at debug instead of info.
 */
const FRAMEWORK_CONTEXTS = new Set([
  'NestFactory',
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestApplication',
]);

const contextOf = (params: unknown[]): unknown => params[params.length - 1];

/** The app's Nest logger: nestjs-pino's, with the framework's start-up lines moved to debug. */
@Injectable()
export class ServiceLogger implements LoggerService {
  constructor(private readonly pino: Logger) {}

  log(message: unknown, ...params: unknown[]): void {
    if (FRAMEWORK_CONTEXTS.has(contextOf(params) as string)) this.pino.debug(message, ...params);
    else this.pino.log(message, ...params);
  }

  error(message: unknown, ...params: unknown[]): void {
    this.pino.error(message, ...params);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.pino.warn(message, ...params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.pino.debug(message, ...params);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.pino.verbose(message, ...params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.pino.fatal(message, ...params);
  }
}
