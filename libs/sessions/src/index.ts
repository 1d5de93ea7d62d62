export * from './application/startup-context.use-case';
export * from './sessions.module';
export * from './domain/session';
export * from './domain/session.errors';
// Project identity lives in the kernel (recall normalises projects too); re-exported for session users.
export { normaliseGitRemote, projectIdentity, remoteWithoutCredentials } from '@app/kernel';
export * from './contracts/session.schemas';
export * from './contracts/session.mapping';
export * from './application/start-session.use-case';
export * from './application/update-session.use-case';
export * from './application/list-sessions.use-case';
export * from './application/get-session.use-case';
export * from './application/record-session-events.use-case';
export * from './application/get-session-timeline.use-case';
export * from './application/process-session-events.use-case';
export * from './domain/startup-context';
export * from './contracts/startup-context.schemas';
export * from './contracts/startup-context.mapping';
