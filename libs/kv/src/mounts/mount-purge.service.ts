import { Injectable } from '@nestjs/common';
import { Vacuum } from '../shared/vacuum';
import { MountPurgeEventLog } from './mount-purge.projection';
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
    private readonly log: MountPurgeEventLog,
    private readonly vacuum: Vacuum,
  ) {}

  async mountDisabled(mount: {
    uuid: string;
    type: string;
    path: string;
    replicated?: boolean;
  }): Promise<void> {
    // on a secondary kv's log is the primary's stream: its purge arrives there, never made here
    if (!KV_MOUNT_TYPES.has(mount.type) || mount.replicated === true) return;
    if (!(await this.repo.hasData(mount.uuid))) return;
    await this.log.append(mount.uuid, 'any', [
      { type: 'MountDataPurged', data: { type: mount.type, path: mount.path } },
    ]);
    await this.vacuum.request();
  }
}
