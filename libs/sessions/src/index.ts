export * from './application/startup-context.use-case';
export * from './sessions.module';
