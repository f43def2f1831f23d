import { cloudARoutes } from '@coffer/contracts/cloud-a';
import { cloudBRoutes } from '@coffer/contracts/cloud-b';
import { defineEngine } from '@coffer/service-host';
import { CLOUD_CREDS_SCHEMA } from './cloud-creds.di';
import { CloudCredsModule } from './cloud-creds.module';
import { cloudCredsMigrations } from './cloud-creds.parts';

/** The cloud-creds service: Azure service principals (cloud-a) and AWS IAM/STS credentials (cloud-b). */
export const cloudCredsEngine = defineEngine({
  name: 'cloud-creds',
  summary: 'Azure service principals (cloud-a) and AWS IAM / STS credentials (cloud-b)',
  schema: CLOUD_CREDS_SCHEMA,
  migrations: cloudCredsMigrations,
  cipher: 'keyring',
  module: (runtime) => CloudCredsModule.register(runtime),
  mountTypes: {
    'cloud-a': { kind: 'secret', routes: () => cloudARoutes },
    'cloud-b': { kind: 'secret', routes: () => cloudBRoutes },
  },
  devMounts: [
    { path: 'cloud-a', type: 'cloud-a', description: 'Azure service principals' },
    { path: 'cloud-b', type: 'cloud-b', description: 'AWS IAM and STS credentials' },
  ],
  // cloud-b/ is mounted in dev mode only: in a cluster, tests mount it and then waitForEngines.
  readinessPath: 'cloud-b/config/lease',
  deploy: { replicas: 2, autoscale: { minReplicas: 2, maxReplicas: 6 } },
});
