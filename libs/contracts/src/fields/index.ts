// Vault's request-field rules, shared by every contract: weak decoding, durations, error texts.
export * from './duration';
export * from './json-object';
export * from './multi-error';
export * from './request-errors';
export * from './weak-fields';
