export { KvModule } from './kv.module';
export { KV_SCHEMA, type KvModuleOptions } from './kv.di';
export { kvMigrations } from './migrations';
export { KV_EVENT_TYPES, KV_LOGS } from './kv.events';
export { KvListHistoryService } from './shared/kv-list-history.service';
export { kvEngine } from './kv.engine';
