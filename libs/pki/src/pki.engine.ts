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
  // 404 until the mount has a CA, 200 after; cluster tests mount pki/ and wait for the engine.
  readinessPath: 'pki/cert/ca',
  // Stateless replicas; RSA key generation is CPU-bound: scale on CPU.
  deploy: { replicas: 2, autoscale: { minReplicas: 2, maxReplicas: 10 } },
});
