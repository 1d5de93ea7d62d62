export * from './secret-ref';
export * from './secret-store.port';
export * from './secret-store.errors';
export * from './no-secret-store';
export { CIPHERTEXT_PREFIX } from './local/local-secret-store.adapter';
export * from './vault/probe-vault';
export * from './detection';
export * from './secrets.module';
export * from './metered-secret-store';
