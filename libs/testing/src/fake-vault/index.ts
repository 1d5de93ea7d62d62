export * from './fake-vault.server';
export type { FakeTokenOptions } from './fake-vault-tokens';
