import { Injectable } from '@nestjs/common';
import { KvEventLog } from '../shared/event-log';
import { kvMountStream } from '../shared/streams';
import { Vacuum } from '../shared/vacuum';
import { MountPurgeRepository } from './mount-purge.repository';

/** Mount types whose data the kv service holds. */
const KV_MOUNT_TYPES = new Set(['kv', 'cubbyhole']);

/**
 * A disabled mount's data is erased at once: one MountDataPurged event, whose projection deletes
 * every data key and row of the mount. Every replica receives the broadcast; the first one does
 * the work and the others find nothing left.
 */
@Injectable()
export class MountPurgeService {
  constructor(
    private readonly repo: MountPurgeRepository,
    private readonly log: KvEventLog,
    private readonly vacuum: Vacuum,
  ) {}

  async mountDisabled(mount: { uuid: string; type: string; path: string }): Promise<void> {
    if (!KV_MOUNT_TYPES.has(mount.type)) return;
    if (!(await this.repo.hasData(mount.uuid))) return;
    const event = { type: 'MountDataPurged', data: { type: mount.type, path: mount.path } };
    await this.log.append(kvMountStream(mount.uuid), [event], 'any', (trx) =>
      this.repo.purge(trx, mount.uuid),
    );
    await this.vacuum.request();
  }
}
