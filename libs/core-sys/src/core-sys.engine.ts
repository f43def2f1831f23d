import { approleRoutes, identityRoutes, systemRoutes, tokenRoutes, userpassRoutes } from '@coffer/contracts';
import { defineEngine } from '@coffer/service-host';
import { CoreSysModule } from './core-sys.module';
import { CORE_SYS_SCHEMA, coreSysMigrations } from './migrations';

/**
 * core-sys, the platform: seal, tokens, policies, mounts, auth (userpass) and identity. It owns
 * the barrier; every other engine fetches the keyring from it.
 */
export const coreSysEngine = defineEngine({
  name: 'core-sys',
  summary: 'seal/unseal, tokens, policies, mounts, auth and identity',
  schema: CORE_SYS_SCHEMA,
  migrations: coreSysMigrations,
  cipher: 'barrier',
  module: (runtime, host) => CoreSysModule.register(runtime, host),
  mountTypes: {
    system: { kind: 'builtin', routes: () => systemRoutes },
    token: { kind: 'builtin', routes: () => tokenRoutes },
    userpass: { kind: 'auth', routes: () => userpassRoutes },
    identity: { kind: 'builtin', routes: () => identityRoutes },
    approle: { kind: 'auth', routes: () => approleRoutes },
  },
  devMounts: [],
  // Answers 503 while sealed, 200 with the root token once unsealed.
  readinessPath: 'auth/token/lookup-self',
  // Owns the barrier and the seal state: after a restart it is sealed until unsealed.
  deploy: { replicas: 1 },
});
