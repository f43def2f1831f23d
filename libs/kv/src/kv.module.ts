import { Module, type DynamicModule } from '@nestjs/common';
import type { ServiceRuntime } from '@coffer/event-store';
import { CubbyholeLifecycleService } from './flat/cubbyhole-lifecycle.service';
import { FlatSecretService } from './flat/flat-secret.service';
import { CubbyholeHandlers, Kv1Handlers } from './flat/flat.handlers';
import { FlatRepository } from './flat/flat.repository';
import { KV_EVENT_STORE, KV_OPTIONS, KV_RUNTIME, type KvModuleOptions } from './kv.di';
import { Kv2ConfigService } from './kv2/kv2-config.service';
import { Kv2DataService } from './kv2/kv2-data.service';
import { Kv2MetadataService } from './kv2/kv2-metadata.service';
import { Kv2VersionsService } from './kv2/kv2-versions.service';
import {
  Kv2ConfigHandlers,
  Kv2DataHandlers,
  Kv2MetadataHandlers,
  Kv2VersionsHandlers,
} from './kv2/kv2.handlers';
import { Kv2Projection } from './kv2/kv2.projection';
import { Kv2Repository } from './kv2/kv2.repository';
import { Kv2Store } from './kv2/kv2.store';
import { KvBroadcastHandlers } from './mounts/broadcast.handlers';
import { MountPurgeRepository } from './mounts/mount-purge.repository';
import { MountPurgeService } from './mounts/mount-purge.service';
import { DataKeyCipher } from './shared/data-keys';
import { createKvEventStore, KvEventLog } from './shared/event-log';
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
        { provide: KV_EVENT_STORE, useFactory: () => createKvEventStore(runtime) },
        { provide: DataKeyCipher, useFactory: () => new DataKeyCipher(runtime.cipher) },
        KvEventLog,
        StreamWriter,
        Vacuum,
        FlatRepository,
        FlatSecretService,
        CubbyholeLifecycleService,
        Kv2Repository,
        Kv2Projection,
        Kv2Store,
        Kv2ConfigService,
        Kv2DataService,
        Kv2VersionsService,
        Kv2MetadataService,
        MountPurgeRepository,
        MountPurgeService,
      ],
      controllers: [
        Kv1Handlers,
        CubbyholeHandlers,
        Kv2ConfigHandlers,
        Kv2DataHandlers,
        Kv2VersionsHandlers,
        Kv2MetadataHandlers,
        KvBroadcastHandlers,
      ],
    };
  }
}
