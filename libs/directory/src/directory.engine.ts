import { directoryRoutes } from '@coffer/contracts/directory';
import { defineEngine } from '@coffer/service-host';
import { directoryMigrations } from './migrations';
import { DIRECTORY_SCHEMA } from './directory.di';
import { DirectoryModule } from './directory.module';

/** The directory service: LDAP / Active Directory service account passwords and libraries. */
export const directoryEngine = defineEngine({
  name: 'directory',
  summary: 'LDAP / Active Directory account passwords and check-out libraries',
  schema: DIRECTORY_SCHEMA,
  migrations: directoryMigrations,
  cipher: 'keyring',
  module: (runtime) => DirectoryModule.register(runtime),
  mountTypes: { directory: { kind: 'secret', routes: () => directoryRoutes } },
  devMounts: [{ path: 'directory', type: 'directory', description: 'directory account passwords' }],
  // directory/ is mounted in dev mode only: in a cluster, tests mount it and then waitForEngines.
  readinessPath: 'directory/config',
  deploy: { replicas: 2, autoscale: { minReplicas: 2, maxReplicas: 6 } },
});
