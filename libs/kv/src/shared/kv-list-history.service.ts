import { Inject, Injectable } from '@nestjs/common';
import type { EngineHistoryStateResponse } from '@coffer/contracts';
import type { EventStore } from '@coffer/event-store';
import { KV_EVENT_STORE } from '../kv.di';
import { childEntry, listFolder } from './paths';
import { kvKeyStream } from './streams';

/**
 * The LIST of a kv folder at an instant (`kv.history.state` with `list`): kv v1 `<folder>` and
 * kv v2 `metadata/<folder>` as the live LISTs answered them. Each key is its own stream
 * (`kv/<mount uuid>/<path>`): the keys below the folder then are the streams whose last event
 * recorded at or before the instant left the key in place (kv v1: not SecretDeleted; kv v2: not
 * SecretMetadataDeleted, as a key whose versions are all deleted or destroyed is still listed),
 * cut to one folder level as the live LIST cuts them. One scan of the mount's streams, not indexed.
 */
@Injectable()
export class KvListHistoryService {
  constructor(@Inject(KV_EVENT_STORE) private readonly store: EventStore) {}

  async listAt(
    mountUuid: string,
    path: string,
    at: Date,
    versioned: boolean,
  ): Promise<EngineHistoryStateResponse> {
    const folder = listFolder(path);
    const root = kvKeyStream(mountUuid, '');
    const gone = versioned ? 'SecretMetadataDeleted' : 'SecretDeleted';
    const keys = new Set<string>();
    let wal = 0;
    for (const stored of await this.store.lastEventsOfPrefixAt(root + folder, at)) {
      wal = Math.max(wal, stored.wal);
      if (stored.type !== gone) keys.add(childEntry(folder, stored.stream.slice(root.length)));
    }
    // the live LIST: byte order (the read model's "C" collation), 404 when the folder is empty
    if (keys.size === 0) return { found: false, wal, state: null, warnings: [] };
    return { found: true, wal, state: { keys: [...keys].sort(byteOrder) }, warnings: [] };
  }
}

function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
