export * from './domain-error';
export * from './project-identity';
export * from './text-budget';
export * from './dependency-unavailable';
