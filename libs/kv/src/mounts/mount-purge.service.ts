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
    // a replicated mount's data on a secondary is the primary's: its purge arrives with the
    // primary's rows (the replica log), never made here; a local mount's is purged as on a primary
    if (!KV_MOUNT_TYPES.has(mount.type) || mount.replicated === true) return;
    if (!(await this.repo.hasData(mount.uuid))) return;
    await this.log.append(mount.uuid, 'any', [
      { type: 'MountDataPurged', data: { type: mount.type, path: mount.path } },
    ]);
    await this.vacuum.request();
  }
}
