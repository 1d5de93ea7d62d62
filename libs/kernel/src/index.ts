export * from './domain-error';
