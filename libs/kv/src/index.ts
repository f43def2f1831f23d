export { KvModule } from './kv.module';
export { KV_SCHEMA, type KvModuleOptions } from './kv.di';
export { kvMigrations } from './migrations';
export { KV_EVENT_TYPES } from './kv.events';
export { kvEngine } from './kv.engine';
