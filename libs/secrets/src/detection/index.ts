export * from './finding';
export * from './normalize-text';
export * from './entropy';
export * from './secret-detector';
export * from './url-redaction';
export * from './recalled-text-screen';
