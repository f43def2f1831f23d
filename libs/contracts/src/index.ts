export * from './errors';
export * from './contract';
export * from './context';
export * from './engine';
export * from './routes';
export * from './core';
