import { oidcRoutes } from '@coffer/contracts/oidc';
import { defineEngine } from '@coffer/service-host';
import { oidcMigrations } from './migrations';
import { OIDC_SCHEMA } from './oidc.di';
import { OidcModule } from './oidc.module';

/**
 * The oidc service: the OpenID Connect provider. It owns no mount type: its routes extend
 * core-sys's builtin identity/ mount (identity/oidc/*).
 */
export const oidcEngine = defineEngine({
  name: 'oidc',
  summary: 'OpenID Connect provider (identity/oidc)',
  schema: OIDC_SCHEMA,
  migrations: oidcMigrations,
  cipher: 'keyring',
  module: (runtime, host) => OidcModule.register(runtime, { apiAddr: host.apiAddr }),
  mountTypes: {},
  routeExtensions: { identity: () => oidcRoutes },
  devMounts: [],
  // identity/ is mounted everywhere and the default provider always exists; a sealed replica answers 503
  readinessPath: 'identity/oidc/provider/default/.well-known/openid-configuration',
  deploy: { replicas: 2, autoscale: { minReplicas: 2, maxReplicas: 10 } },
});
