/**
 * The test door: the Vault and local-encryption adapters, Vault's login and the raw node-vault client, for the suites that run
 * against the fake Vault and a real `vault server -dev`; the secret store factory SecretsModule uses.
 * Production code imports only the index (lint enforces both).
 */
export * from './vault/node-vault-client';
export * from './vault/vault-auth';
export * from './vault/vault-secret-store.adapter';
export * from './secret-store.factory';
export * from './local/encryption-key';
export * from './local/local-secret-store.adapter';
