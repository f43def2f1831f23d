import { Injectable } from '@nestjs/common';
import { KvDb, type KvTrx } from '../shared/kv.table';

/** Every table with rows of a mount. */
const MOUNT_TABLES = ['data_keys', 'kv2_keys', 'kv2_config', 'flat_secrets'] as const;

/** SQL of a disabled mount's purge: every read-model row of the mount, data keys first. */
@Injectable()
export class MountPurgeRepository {
  constructor(private readonly db: KvDb) {}

  async hasData(mountUuid: string): Promise<boolean> {
    const db = this.db.of();
    const probes = await Promise.all(
      MOUNT_TABLES.map((table) =>
        db
          .selectFrom(table)
          .select('mount_uuid')
          .where('mount_uuid', '=', mountUuid)
          .limit(1)
          .executeTakeFirst(),
      ),
    );
    return probes.some((p) => p !== undefined);
  }

  async purge(trx: KvTrx, mountUuid: string): Promise<void> {
    const db = this.db.of(trx);
    await db.deleteFrom('data_keys').where('mount_uuid', '=', mountUuid).execute();
    await db.deleteFrom('kv2_versions').where('mount_uuid', '=', mountUuid).execute();
    await db.deleteFrom('kv2_keys').where('mount_uuid', '=', mountUuid).execute();
    await db.deleteFrom('kv2_config').where('mount_uuid', '=', mountUuid).execute();
    await db.deleteFrom('flat_secrets').where('mount_uuid', '=', mountUuid).execute();
  }
}
