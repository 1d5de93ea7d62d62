export * from './app-config';
export * from './config.module';
export { envSchema, SENSITIVE_ENV_KEYS } from './env.schema';
export type { OAuthConsoleClient, OAuthIssuer } from './oauth.schema';
export { consoleCookiesSecure } from './oauth.schema';
