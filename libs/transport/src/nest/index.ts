export * from './caller';
export * from './rpc-context';
export * from './decorators';
export * from './filter';
export * from './service-app';
export * from './strategy';
