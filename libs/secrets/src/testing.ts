/**
 * The test door: the raw node-vault client, for the Vault contract suite that runs against the
 * fake and a real `vault server -dev`. Production code imports only the index (lint enforces both).
 */
export * from './vault/node-vault-client';
