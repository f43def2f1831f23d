import type { ServiceRuntime } from '@coffer/event-store';
import { writerProvider } from '@coffer/event-store';
import { CLOUD_CREDS_EVENT_STORE, CLOUD_CREDS_RUNTIME } from '../cloud-creds.di';
import type { EngineParts } from '../shared/engine-parts';
import { CloudAHistoryService } from './history/cloud-a-history.service';
import { CloudAHandlers } from './cloud-a.handlers';
import { CloudAConfigService } from './config/cloud-a-config.service';
import { CloudAEnv } from './config/cloud-a-env';
import { CloudACredsService } from './creds/cloud-a-creds.service';
import { CloudALeaseBackend } from './creds/cloud-a-lease.backend';
import { CloudARecoverySweep } from './creds/cloud-a-recovery.sweep';
import { cloudAMigrations } from './migrations';
import { CLOUD_A_LOG } from './records/cloud-a-record.events';
import {
  CloudARecordEventLog,
  CloudARecordProjection,
  CloudASealed,
} from './records/cloud-a-record.projection';
import { CloudARecordRepository } from './records/cloud-a-record.repository';
import { CloudARecordStore } from './records/cloud-a-record.store';
import { CloudARoleService } from './roles/cloud-a-role.service';

/** Everything the cloud-a mount type adds to the cloud-creds service. */
export const cloudAParts: EngineParts = {
  logs: [CLOUD_A_LOG],
  migrations: cloudAMigrations,
  providers: [
    {
      provide: CloudASealed,
      useFactory: (runtime: ServiceRuntime) => new CloudASealed(runtime.cipher),
      inject: [CLOUD_CREDS_RUNTIME],
    },
    { provide: CloudAEnv, useFactory: () => CloudAEnv.fromProcess() },
    CloudARecordRepository,
    CloudARecordProjection,
    writerProvider(CloudARecordEventLog, CLOUD_CREDS_EVENT_STORE, CLOUD_A_LOG, CloudARecordProjection),
    CloudARecordStore,
    CloudAConfigService,
    CloudARoleService,
    CloudACredsService,
    CloudARecoverySweep,
  ],
  controllers: [CloudAHandlers],
  historyBackends: [CloudAHistoryService],
  leaseBackends: [CloudALeaseBackend],
};
