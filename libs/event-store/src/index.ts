export * from './types';
export * from './runtime';
