import { Inject, Injectable } from '@nestjs/common';
import type { Kysely } from 'kysely';
import type { AnyTrx, ServiceRuntime } from '@coffer/event-store';
import { KV_RUNTIME } from '../kv.di';
import type { KvDatabase } from '../shared/kv.table';

/** SQL of a disabled mount's purge: every read-model row of the mount, data keys first. */
@Injectable()
export class MountPurgeRepository {
  constructor(@Inject(KV_RUNTIME) private readonly runtime: ServiceRuntime) {}

  private db(trx?: AnyTrx): Kysely<KvDatabase> {
    return ((trx ?? this.runtime.db) as Kysely<KvDatabase>).withSchema(this.runtime.schema);
  }

  async hasData(mountUuid: string): Promise<boolean> {
    const db = this.db();
    const probes = await Promise.all([
      db
        .selectFrom('data_keys')
        .select('mount_uuid')
        .where('mount_uuid', '=', mountUuid)
        .limit(1)
        .executeTakeFirst(),
      db
        .selectFrom('kv2_keys')
        .select('mount_uuid')
        .where('mount_uuid', '=', mountUuid)
        .limit(1)
        .executeTakeFirst(),
      db
        .selectFrom('kv2_config')
        .select('mount_uuid')
        .where('mount_uuid', '=', mountUuid)
        .limit(1)
        .executeTakeFirst(),
      db
        .selectFrom('flat_secrets')
        .select('mount_uuid')
        .where('mount_uuid', '=', mountUuid)
        .limit(1)
        .executeTakeFirst(),
    ]);
    return probes.some((p) => p !== undefined);
  }

  async purge(trx: AnyTrx, mountUuid: string): Promise<void> {
    const db = this.db(trx);
    await db.deleteFrom('data_keys').where('mount_uuid', '=', mountUuid).execute();
    await db.deleteFrom('kv2_versions').where('mount_uuid', '=', mountUuid).execute();
    await db.deleteFrom('kv2_keys').where('mount_uuid', '=', mountUuid).execute();
    await db.deleteFrom('kv2_config').where('mount_uuid', '=', mountUuid).execute();
    await db.deleteFrom('flat_secrets').where('mount_uuid', '=', mountUuid).execute();
  }
}
