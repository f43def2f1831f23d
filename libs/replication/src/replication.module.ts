import { Module, type DynamicModule } from '@nestjs/common';
import { createServiceEventStore, writerProvider, type ServiceRuntime } from '@coffer/event-store';
import {
  REPLICATION_EVENT_STORE,
  REPLICATION_OPTIONS,
  REPLICATION_RUNTIME,
  type ReplicationOptions,
} from './replication.di';
import { ReplicationDb } from './replication.table';
import { REPLICATION_LOGS, REPLICATION_STATE_LOG } from './state/replication-state.events';
import { ReplicationStateLog, ReplicationStateProjection } from './state/replication-state.projection';
import { ReplicationStateRepository } from './state/replication-state.repository';
import { ReplicationStateService } from './state/replication-state.service';
import { DrReplicationHandlers, PerformanceReplicationHandlers } from './state/replication.handlers';
import { OperationTokenService } from './state/operation-token.service';
import { PathsFilterService } from './state/paths-filter.service';
import { ReplicationService } from './state/replication.service';
import { ReplicaLogRepository } from './stream/replica-log.repository';
import { ReplicaSink } from './stream/replica-sink';
import { ReplicationModesHandlers, ReplicationModesService } from './state/replication-modes.handlers';
import { ReplicaKeyringsRepository } from './stream/replica-keyrings.repository';
import { PromotionFold } from './stream/promotion-fold';
import { ReplicationSupervisor } from './stream/replication-supervisor';
import { StreamStatus } from './stream/stream-status';
import { ReplicationForwardHandlers } from './stream/replication-forward.handlers';
import { ReplicaOpenHandlers } from './stream/replica-open.handlers';
import { ReplicaOpenService } from './stream/replica-open.service';
import { WalSource } from './wal/wal-source';

/**
 * The replication service: the replication state of this cluster (DR and performance), the
 * cluster listener of a primary and the stream client of a secondary. One replica per cluster
 * (the listener binds the cluster address).
 */
@Module({})
export class ReplicationModule {
  static register(runtime: ServiceRuntime, options: ReplicationOptions): DynamicModule {
    return {
      module: ReplicationModule,
      providers: [
        { provide: REPLICATION_RUNTIME, useValue: runtime },
        { provide: REPLICATION_OPTIONS, useValue: options },
        { provide: ReplicationDb, useValue: new ReplicationDb(runtime) },
        { provide: REPLICATION_EVENT_STORE, useValue: createServiceEventStore(runtime, REPLICATION_LOGS) },
        ReplicationStateRepository,
        ReplicationStateProjection,
        writerProvider(
          ReplicationStateLog,
          REPLICATION_EVENT_STORE,
          REPLICATION_STATE_LOG,
          ReplicationStateProjection,
        ),
        ReplicationStateService,
        WalSource,
        ReplicaLogRepository,
        ReplicaSink,
        ReplicationModesService,
        ReplicaKeyringsRepository,
        StreamStatus,
        PromotionFold,
        ReplicaOpenService,
        ReplicationSupervisor,
        ReplicationService,
        PathsFilterService,
        OperationTokenService,
      ],
      controllers: [
        DrReplicationHandlers,
        PerformanceReplicationHandlers,
        ReplicationModesHandlers,
        ReplicationForwardHandlers,
        ReplicaOpenHandlers,
      ],
    };
  }
}
