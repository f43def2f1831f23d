import { Module, type DynamicModule } from '@nestjs/common';
import { createServiceEventStore, writerProvider, type ServiceRuntime } from '@coffer/event-store';
import { ConfigService } from './config/config.service';
import { DIRECTORY_EVENT_STORE, DIRECTORY_RUNTIME } from './directory.di';
import { DIRECTORY_LOGS } from './directory.events';
import {
  DirectoryHistoryHandlers,
  DirectoryLibraryHandlers,
  DirectoryRoleHandlers,
} from './directory.handlers';
import { DirectoryHistoryService } from './history/directory-history.service';
import { DirectoryLeaseHandlers } from './library/lease.handlers';
import { LibraryService } from './library/library.service';
import { RECORD_LOG } from './records/record.events';
import { RecordEventLog, RecordProjection } from './records/record.projection';
import { RecordRepository } from './records/record.repository';
import { RecordStore } from './records/record.store';
import { directoryReplicaProvider } from './replication/directory.replay';
import { RoleService } from './roles/role.service';
import { PasswordRotation } from './rotation/password-rotation.service';
import { RotationSweep } from './rotation/rotation-sweep.service';
import { DirectoryDb } from './shared/directory.table';
import { SealedState } from './shared/sealed-state';

/**
 * The directory service: LDAP / Active Directory account passwords (roles, creds, rotate-root)
 * and the check-out library. Replicas are stateless; the event log orders them.
 */
@Module({})
export class DirectoryModule {
  static register(runtime: ServiceRuntime): DynamicModule {
    return {
      module: DirectoryModule,
      providers: [
        { provide: DIRECTORY_RUNTIME, useValue: runtime },
        { provide: DirectoryDb, useValue: new DirectoryDb(runtime) },
        {
          provide: DIRECTORY_EVENT_STORE,
          useValue: createServiceEventStore(runtime, DIRECTORY_LOGS, {
            replicaLog: { transport: runtime.transport },
          }),
        },
        { provide: SealedState, useValue: new SealedState(runtime.cipher) },
        RecordRepository,
        RecordProjection,
        writerProvider(RecordEventLog, DIRECTORY_EVENT_STORE, RECORD_LOG, RecordProjection),
        RecordStore,
        PasswordRotation,
        ConfigService,
        RoleService,
        LibraryService,
        RotationSweep,
        DirectoryHistoryService,
        directoryReplicaProvider(runtime), // replication: a secondary replays the primary's records
      ],
      controllers: [
        DirectoryRoleHandlers,
        DirectoryLibraryHandlers,
        DirectoryLeaseHandlers,
        DirectoryHistoryHandlers,
      ],
    };
  }
}
