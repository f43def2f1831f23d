import 'reflect-metadata';
import { CORE_SYS_SCHEMA, CoreSysModule, coreSysMigrations } from '@coffer/core-sys';
import { runClusterService, runMain } from '@coffer/service-host';

/**
 * core-sys in cluster mode: seal, tokens, policies, mounts, auth and identity, serving the
 * "core-sys" queue group. It owns the barrier; engine services fetch the keyring from it.
 */
runMain(() =>
  runClusterService({
    service: 'core-sys',
    schema: CORE_SYS_SCHEMA,
    migrations: coreSysMigrations,
    cipher: 'barrier',
    module: (runtime, { config, instanceId }) =>
      CoreSysModule.register(runtime, {
        clusterSecret: config.clusterSecret,
        apiAddr: config.apiAddr,
        instanceId,
      }),
  }),
);
