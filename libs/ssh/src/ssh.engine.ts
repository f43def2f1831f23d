import { sshRoutes } from '@coffer/contracts/ssh';
import { defineEngine } from '@coffer/service-host';
import { sshMigrations } from './migrations';
import { SSH_SCHEMA } from './ssh.di';
import { SshModule } from './ssh.module';

/** The ssh service: SSH certificates, one-time passwords and (deprecated) dynamic keys. */
export const sshEngine = defineEngine({
  name: 'ssh',
  summary: 'SSH certificates, one-time passwords and dynamic keys',
  schema: SSH_SCHEMA,
  migrations: sshMigrations,
  cipher: 'keyring',
  module: (runtime) => SshModule.register(runtime),
  mountTypes: { ssh: { kind: 'secret', routes: () => sshRoutes } },
  devMounts: [{ path: 'ssh', type: 'ssh', description: 'SSH certificates and one-time passwords' }],
  // ssh/ is mounted in dev mode only: in a cluster, tests mount it and then waitForEngines.
  readinessPath: 'ssh/public_key',
  deploy: { replicas: 2, autoscale: { minReplicas: 2, maxReplicas: 10 } },
});
