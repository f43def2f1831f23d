export * from './caller';
export * from './context';
export * from './decorators';
export * from './filter';
export * from './service-app';
export * from './strategy';
