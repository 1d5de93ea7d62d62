export * from './app-config';
export * from './config.module';
export { envSchema, SENSITIVE_ENV_KEYS } from './env.schema';
export type { OAuthIssuer } from './oauth.schema';
