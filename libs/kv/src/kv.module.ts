import { Module, type DynamicModule } from '@nestjs/common';
import { writerProvider, type ServiceRuntime } from '@coffer/event-store';
import { DrStandby } from '@coffer/scheduling';
import { CubbyholeLifecycleService } from './flat/cubbyhole-lifecycle.service';
import { CubbyholeEventLog, CubbyholeProjection } from './flat/cubbyhole.projection';
import { FlatSecretService } from './flat/flat-secret.service';
import { CUBBYHOLE_LOG, FLAT_LOG } from './flat/flat.events';
import { CubbyholeHandlers, Kv1Handlers } from './flat/flat.handlers';
import { FlatEventLog, FlatProjection } from './flat/flat.projection';
import { FlatRepository } from './flat/flat.repository';
import { KV_EVENT_STORE, KV_OPTIONS, KV_RUNTIME, type KvModuleOptions } from './kv.di';
import { KV_LOGS } from './kv.events';
import { KvConfigEventLog, KvConfigProjection } from './kv2/kv2-config.projection';
import { Kv2ConfigService } from './kv2/kv2-config.service';
import { Kv2DataService } from './kv2/kv2-data.service';
import { Kv2HistoryService } from './kv2/kv2-history.service';
import { KvListHistoryService } from './shared/kv-list-history.service';
import { Kv2MetadataService } from './kv2/kv2-metadata.service';
import { Kv2VersionsService } from './kv2/kv2-versions.service';
import {
  Kv2ConfigHandlers,
  Kv2DataHandlers,
  Kv2HistoryHandlers,
  Kv2MetadataHandlers,
  Kv2VersionsHandlers,
} from './kv2/kv2.handlers';
import { KV2_LOG, KV_CONFIG_LOG } from './kv2/kv2.events';
import { Kv2EventLog, Kv2Projection } from './kv2/kv2.projection';
import { Kv2Repository } from './kv2/kv2.repository';
import { Kv2Store } from './kv2/kv2.store';
import { kvReplicaProvider } from './replication/kv.replay';
import { KvBroadcastHandlers } from './mounts/broadcast.handlers';
import { MOUNT_PURGE_LOG } from './mounts/mount.events';
import { MountPurgeEventLog, MountPurgeProjection } from './mounts/mount-purge.projection';
import { MountPurgeRepository } from './mounts/mount-purge.repository';
import { MountPurgeService } from './mounts/mount-purge.service';
import { DataKeyCipher } from './shared/data-keys';
import { KvDb } from './shared/kv.table';
import { KvEventStore } from './shared/kv-event-store';
import { KvReadFence } from './shared/read-fence';
import { StreamWriter } from './shared/stream-writer';
import { Vacuum } from './shared/vacuum';

/**
 * The kv service: kv v1, kv v2 and cubbyhole. Serve it with
 * `new CofferTransportStrategy(transport, 'kv')` after `migrateSchema(db, KV_SCHEMA, kvMigrations)`.
 * Replicas are stateless: any number can serve the same mounts from the same database.
 */
@Module({})
export class KvModule {
  static register(runtime: ServiceRuntime, options: KvModuleOptions = {}): DynamicModule {
    return {
      module: KvModule,
      providers: [
        { provide: KV_RUNTIME, useValue: runtime },
        { provide: KV_OPTIONS, useValue: options },
        { provide: KvDb, useValue: new KvDb(runtime) },
        {
          provide: KV_EVENT_STORE,
          useFactory: (fence: KvReadFence) => KvEventStore.create(runtime, KV_LOGS, fence),
          inject: [KvReadFence],
        },
        { provide: DataKeyCipher, useFactory: () => new DataKeyCipher(runtime.cipher) },
        StreamWriter,
        Vacuum,
        KvReadFence,
        FlatRepository,
        FlatProjection,
        writerProvider(FlatEventLog, KV_EVENT_STORE, FLAT_LOG, FlatProjection),
        CubbyholeProjection,
        writerProvider(CubbyholeEventLog, KV_EVENT_STORE, CUBBYHOLE_LOG, CubbyholeProjection),
        FlatSecretService,
        CubbyholeLifecycleService,
        { provide: DrStandby, useValue: new DrStandby(runtime.transport) },
        Kv2Repository,
        Kv2Projection,
        writerProvider(Kv2EventLog, KV_EVENT_STORE, KV2_LOG, Kv2Projection),
        KvConfigProjection,
        writerProvider(KvConfigEventLog, KV_EVENT_STORE, KV_CONFIG_LOG, KvConfigProjection),
        Kv2Store,
        Kv2ConfigService,
        Kv2DataService,
        Kv2VersionsService,
        Kv2MetadataService,
        Kv2HistoryService,
        KvListHistoryService,
        MountPurgeRepository,
        MountPurgeProjection,
        writerProvider(MountPurgeEventLog, KV_EVENT_STORE, MOUNT_PURGE_LOG, MountPurgeProjection),
        MountPurgeService,
        kvReplicaProvider(runtime), // replication: a secondary replays the primary's kv log
      ],
      controllers: [
        Kv1Handlers,
        CubbyholeHandlers,
        Kv2ConfigHandlers,
        Kv2DataHandlers,
        Kv2VersionsHandlers,
        Kv2MetadataHandlers,
        Kv2HistoryHandlers,
        KvBroadcastHandlers,
      ],
    };
  }
}
