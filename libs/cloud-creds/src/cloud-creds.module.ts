import { Module, type DynamicModule } from '@nestjs/common';
import { createServiceEventStore, type ServiceRuntime } from '@coffer/event-store';
import { DrStandby } from '@coffer/scheduling';
import { CLOUD_CREDS_EVENT_STORE, CLOUD_CREDS_RUNTIME } from './cloud-creds.di';
import { CLOUD_CREDS_LOGS, CLOUD_CREDS_PARTS } from './cloud-creds.parts';
import { CLOUD_HISTORY_BACKENDS, CloudCredsHistoryHandlers } from './shared/cloud-history-backend';
import { CLOUD_LEASE_BACKENDS, CloudCredsLeaseHandlers } from './shared/cloud-lease-backend';
import { CloudCredsDb } from './shared/cloud-record.table';
import { cloudCredsReplicaProvider } from './replication/cloud-creds.replay';

/**
 * The cloud-creds service: credentials in outside clouds (cloud-a: Azure, cloud-b: AWS). Replicas
 * are stateless; the event log orders them.
 */
@Module({})
export class CloudCredsModule {
  static register(runtime: ServiceRuntime): DynamicModule {
    const leaseBackends = CLOUD_CREDS_PARTS.flatMap((part) => part.leaseBackends ?? []);
    const historyBackends = CLOUD_CREDS_PARTS.flatMap((part) => part.historyBackends ?? []);
    return {
      module: CloudCredsModule,
      providers: [
        { provide: CLOUD_CREDS_RUNTIME, useValue: runtime },
        {
          provide: CLOUD_CREDS_EVENT_STORE,
          useValue: createServiceEventStore(runtime, CLOUD_CREDS_LOGS, {
            replicaLog: { transport: runtime.transport },
          }),
        },
        // the read model of every mount type (one table each, one shape)
        { provide: CloudCredsDb, useValue: new CloudCredsDb(runtime) },
        // the recovery passes skip while this cluster is a DR secondary (nothing is undone there)
        { provide: DrStandby, useValue: new DrStandby(runtime.transport) },
        ...CLOUD_CREDS_PARTS.flatMap((part) => part.providers),
        ...leaseBackends,
        {
          provide: CLOUD_LEASE_BACKENDS,
          useFactory: (...backends: unknown[]) => backends,
          inject: leaseBackends,
        },
        ...historyBackends,
        {
          provide: CLOUD_HISTORY_BACKENDS,
          useFactory: (...backends: unknown[]) => backends,
          inject: historyBackends,
        },
        cloudCredsReplicaProvider(runtime), // replication: a secondary replays the primary's log
      ],
      controllers: [
        ...CLOUD_CREDS_PARTS.flatMap((part) => part.controllers),
        CloudCredsLeaseHandlers,
        CloudCredsHistoryHandlers,
      ],
    };
  }
}
