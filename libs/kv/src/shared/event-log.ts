import { Inject, Injectable } from '@nestjs/common';
import {
  EventRegistry,
  EventStore,
  type AnyTrx,
  type AppendedEvent,
  type ServiceRuntime,
} from '@coffer/event-store';
import { KV_EVENT_STORE } from '../kv.di';
import { FLAT_EVENT_TYPES } from '../flat/flat.events';
import { KV2_KEY_EVENT_TYPES, kvConfigWritten } from '../kv2/kv2.events';
import { MOUNT_EVENT_TYPES } from '../mounts/mount.events';

/** Every event type of the kv log, version 1 of each. */
export const KV_EVENT_TYPES = [
  ...KV2_KEY_EVENT_TYPES,
  kvConfigWritten,
  ...FLAT_EVENT_TYPES,
  ...MOUNT_EVENT_TYPES,
];

export function createKvEventStore(runtime: ServiceRuntime): EventStore {
  const registry = new EventRegistry(KV_EVENT_TYPES);
  return new EventStore({ db: runtime.db, schema: runtime.schema, cipher: runtime.cipher, registry });
}

export interface KvEvent {
  type: string;
  data: unknown;
}

/** Appends kv events (all at schema version 1) with the read-model projection in the same transaction. */
@Injectable()
export class KvEventLog {
  constructor(@Inject(KV_EVENT_STORE) private readonly store: EventStore) {}

  async append(
    stream: string,
    events: readonly KvEvent[],
    expectedVersion: number | 'any',
    project: (trx: AnyTrx, appended: AppendedEvent[], streamVersion: number) => Promise<void>,
  ): Promise<number> {
    const result = await this.store.append(
      stream,
      events.map((e) => ({ type: e.type, version: 1, data: e.data })),
      {
        expectedVersion,
        project: async (trx, appended) => {
          const last = appended[appended.length - 1];
          if (!last) throw new Error('kv: append without events');
          await project(trx, appended, last.streamVersion);
        },
      },
    );
    return result.version;
  }
}
