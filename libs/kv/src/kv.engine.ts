import { cubbyholeRoutes, kvV1Routes, kvV2Routes } from '@coffer/contracts';
import { defineEngine } from '@coffer/service-host';
import { KV_SCHEMA } from './kv.di';
import { KvModule } from './kv.module';
import { kvMigrations } from './migrations';

/** The kv service: kv v1 and v2 (by the mount's `version` option) and cubbyhole. */
export const kvEngine = defineEngine({
  name: 'kv',
  summary: 'kv v1, kv v2 and cubbyhole',
  schema: KV_SCHEMA,
  migrations: kvMigrations,
  cipher: 'keyring',
  // dev mode is one process on an embedded database: its kv module is the only writer
  module: (runtime, host) => KvModule.register(runtime, { soleWriter: host.dev !== undefined }),
  mountTypes: {
    kv: { kind: 'secret', routes: (options) => (options['version'] === '2' ? kvV2Routes : kvV1Routes) },
    cubbyhole: { kind: 'secret', routes: () => cubbyholeRoutes },
  },
  devMounts: [
    { path: 'secret', type: 'kv', options: { version: '2' }, description: 'key/value secret storage' },
  ],
  // cubbyhole/ is mounted in every cluster; a replica without the keyring answers 503.
  readinessPath: 'cubbyhole/readiness-probe',
  // Stateless replicas behind one queue group: scale on CPU.
  deploy: { replicas: 2, autoscale: { minReplicas: 2, maxReplicas: 10 } },
});
