export * from './core-sys.module';
export * from './tokens-di';
export * from './migrations';
