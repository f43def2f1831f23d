import { pkiRoutes } from '@coffer/contracts/pki';
import { defineEngine } from '@coffer/service-host';
import { PKI_SCHEMA } from './pki.di';
import { PkiModule } from './pki.module';
import { pkiMigrations } from './migrations';

/** The pki service: an X.509 certificate authority per mount (Vault's single-issuer API). */
export const pkiEngine = defineEngine({
  name: 'pki',
  summary: 'X.509 certificates',
  schema: PKI_SCHEMA,
  migrations: pkiMigrations,
  cipher: 'keyring',
  module: (runtime) => PkiModule.register(runtime),
  mountTypes: { pki: { kind: 'secret', routes: () => pkiRoutes } },
  devMounts: [{ path: 'pki', type: 'pki', options: {}, description: 'X.509 certificate authority' }],
  // pki/ is mounted by default in dev mode; cluster tests mount it and wait for the engine.
  readinessPath: 'pki/ca/pem',
  // Stateless replicas; RSA key generation is CPU-bound: scale on CPU.
  deploy: { replicas: 2, autoscale: { minReplicas: 2, maxReplicas: 10 } },
});
