import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { JOB_DEFINITIONS } from './job-definitions';
import { JobHandlerRegistry } from './job-handler.registry';
import { HANDLES_JOB, type HandlesJobMetadata, type JobSchedule } from './handles-job.decorator';
import type { JobContext } from './job-queue.port';
import { UnrecoverableJobError } from './jobs.errors';

export interface DiscoveredSchedule extends JobSchedule {
  readonly name: HandlesJobMetadata['name'];
}

/**
 * Finds every `@HandlesJob` method among the app's providers and registers it: the payload is
 * parsed once here (a payload that does not parse fails the job without retries), then the
 * method runs. Scheduled jobs are collected for the slot scheduler.
 */
@Injectable()
export class JobHandlerDiscovery implements OnModuleInit {
  private readonly found: DiscoveredSchedule[] = [];

  constructor(
    @Inject(DiscoveryService) private readonly discovery: DiscoveryService,
    @Inject(MetadataScanner) private readonly scanner: MetadataScanner,
    @Inject(Reflector) private readonly reflector: Reflector,
    @Inject(JobHandlerRegistry) private readonly registry: JobHandlerRegistry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    const seen = new Set<object>();
    for (const wrapper of this.discovery.getProviders()) {
      const instance: unknown = wrapper.instance;
      if (!instance || typeof instance !== 'object' || seen.has(instance)) continue;
      seen.add(instance);
      const prototype = Object.getPrototypeOf(instance) as object;
      for (const method of this.scanner.getAllMethodNames(prototype)) {
        const fn = (instance as Record<string, unknown>)[method];
        if (typeof fn !== 'function') continue;
        const meta = this.reflector.get<HandlesJobMetadata | undefined>(HANDLES_JOB, fn);
        if (!meta) continue;
        this.register(
          meta,
          instance,
          fn as (payload: unknown, context: JobContext) => Promise<unknown>,
          method,
        );
      }
    }
  }

  schedules(): readonly DiscoveredSchedule[] {
    return this.found;
  }

  private register(
    meta: HandlesJobMetadata,
    instance: object,
    fn: (payload: unknown, context: JobContext) => Promise<unknown>,
    method: string,
  ): void {
    const schema = JOB_DEFINITIONS[meta.name];
    const source = `${instance.constructor.name}.${method}`;
    this.registry.register(
      meta.name,
      {
        async handle(data, context) {
          const parsed = schema.safeParse(data);
          if (!parsed.success) {
            throw new UnrecoverableJobError(`invalid ${meta.name} payload: ${parsed.error.message}`);
          }
          await fn.call(instance, parsed.data, context);
        },
      },
      source,
    );
    if (meta.schedule) {
      const schedule = typeof meta.schedule === 'function' ? meta.schedule(this.config) : meta.schedule;
      this.found.push({ name: meta.name, ...schedule });
    }
  }
}
