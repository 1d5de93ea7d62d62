export * from './hookable-fastify';
export * from './request-id';
export * from './logger-options';
export * from './http-metrics';
export * from './observability.module';
export * from './backlog-gauges';
export * from './service-logger';
