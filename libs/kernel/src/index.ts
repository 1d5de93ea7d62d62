export * from './domain-error';
export * from './project-identity';
export * from './text-budget';
export * from './dependency-unavailable';
export * from './recalled-text';
export * from './token-estimate';
