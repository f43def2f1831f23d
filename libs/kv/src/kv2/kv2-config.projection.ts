import { Injectable } from '@nestjs/common';
import { AggregateWriter, versionAfter, type AppendedOf, type Projection } from '@coffer/event-store';
import { KvDb, type KvTrx } from '../shared/kv.table';
import type { KV_CONFIG_EVENT_TYPES, KvConfigAppend } from './kv2.events';

type KvConfigEvents = typeof KV_CONFIG_EVENT_TYPES;

/**
 * Engine config read model (stream `kv-config/<mount uuid>`). The first write inserts: a
 * concurrent first write makes it fail and the service retries on the fresh row.
 */
@Injectable()
export class KvConfigProjection implements Projection<KvConfigEvents, void, KvConfigAppend> {
  constructor(private readonly db: KvDb) {}

  async apply(trx: KvTrx, events: AppendedOf<KvConfigEvents>[], a: KvConfigAppend): Promise<void> {
    const last = events[events.length - 1];
    if (!last) return;
    const values = {
      max_versions: last.data.maxVersions,
      cas_required: last.data.casRequired,
      delete_version_after: last.data.deleteVersionAfter,
      stream_version: versionAfter(events),
    };
    const db = this.db.of(trx);
    if (a.created) {
      await db
        .insertInto('kv2_config')
        .values({ mount_uuid: a.mountUuid, ...values })
        .execute();
    } else {
      await db.updateTable('kv2_config').set(values).where('mount_uuid', '=', a.mountUuid).execute();
    }
  }
}

/** A mount's engine config writes: `append({ mountUuid, created }, expectedVersion, events)`. */
export abstract class KvConfigEventLog extends AggregateWriter<KvConfigEvents, void, KvConfigAppend> {}
