import 'reflect-metadata';
import { KV_SCHEMA, KvModule, kvMigrations } from '@coffer/kv';
import { runClusterService, runMain } from '@coffer/service-host';

/** kv (kv v1, kv v2, cubbyhole) in cluster mode: one replica of the "kv" queue group. */
runMain(() =>
  runClusterService({
    service: 'kv',
    schema: KV_SCHEMA,
    migrations: kvMigrations,
    cipher: 'keyring',
    module: (runtime) => KvModule.register(runtime),
  }),
);
