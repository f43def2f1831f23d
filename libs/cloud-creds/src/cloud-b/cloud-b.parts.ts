import { writerProvider, type ServiceRuntime } from '@coffer/event-store';
import { CLOUD_CREDS_EVENT_STORE, CLOUD_CREDS_RUNTIME } from '../cloud-creds.di';
import type { EngineParts } from '../shared/engine-parts';
import { CloudBHistoryService } from './history/cloud-b-history.service';
import { CLOUD_B_ENVIRONMENT, loadCloudBEnvironment } from './aws/cloud-b-environment';
import { CloudBHandlers } from './cloud-b.handlers';
import { CloudBConfigService } from './config/cloud-b-config.service';
import { RootRotation } from './config/cloud-b-root-rotation.service';
import { CloudBCredsService } from './creds/cloud-b-creds.service';
import { CloudBLeaseService } from './creds/cloud-b-lease.service';
import { CloudBUserRemoval } from './creds/cloud-b-user-removal.service';
import { cloudBMigrations } from './migrations/cloud-b-migrations';
import { CLOUD_B_LOG } from './records/cloud-b-record.events';
import { CloudBEventLog, CloudBRecordProjection, CloudBSealed } from './records/cloud-b-record.projection';
import { CloudBRecordRepository } from './records/cloud-b-record.repository';
import { CloudBRecordStore } from './records/cloud-b-record.store';
import { CloudBRecovery } from './recovery/cloud-b-recovery.service';
import { CloudBRoleService } from './roles/cloud-b-role.service';

/** Everything the cloud-b mount type adds to the cloud-creds service. */
export const cloudBParts: EngineParts = {
  logs: [CLOUD_B_LOG],
  migrations: cloudBMigrations,
  providers: [
    // CLOUDB_* read once, at boot
    { provide: CLOUD_B_ENVIRONMENT, useFactory: () => loadCloudBEnvironment() },
    {
      provide: CloudBSealed,
      useFactory: (runtime: ServiceRuntime) => new CloudBSealed(runtime.cipher),
      inject: [CLOUD_CREDS_RUNTIME],
    },
    CloudBRecordRepository,
    CloudBRecordProjection,
    writerProvider(CloudBEventLog, CLOUD_CREDS_EVENT_STORE, CLOUD_B_LOG, CloudBRecordProjection),
    CloudBRecordStore,
    CloudBUserRemoval,
    RootRotation,
    CloudBConfigService,
    CloudBRoleService,
    CloudBCredsService,
    CloudBRecovery,
  ],
  controllers: [CloudBHandlers],
  historyBackends: [CloudBHistoryService],
  leaseBackends: [CloudBLeaseService],
};
