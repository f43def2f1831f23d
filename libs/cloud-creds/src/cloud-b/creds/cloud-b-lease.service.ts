import { Injectable } from '@nestjs/common';
import type { MountInfo } from '@coffer/contracts';
import type { CloudLeaseBackend } from '../../shared/cloud-lease-backend';
import { CloudBRecordRepository } from '../records/cloud-b-record.repository';
import { CloudBRecordStore } from '../records/cloud-b-record.store';
import { cloudBLeaseSchema } from './cloud-b-lease';
import { CloudBUserRemoval } from './cloud-b-user-removal.service';

/**
 * cloud-b's leases: an IAM user's lease renews by the lease config and its end deletes the user
 * with its keys, policies and group memberships; STS credentials expire by themselves.
 */
@Injectable()
export class CloudBLeaseService implements CloudLeaseBackend {
  readonly mountType = 'cloud-b';

  constructor(
    private readonly store: CloudBRecordStore,
    private readonly removal: CloudBUserRemoval,
    private readonly repo: CloudBRecordRepository,
  ) {}

  async renew(mount: MountInfo, internal: unknown): Promise<{ ttl: number; max_ttl: number }> {
    const lease = cloudBLeaseSchema.parse(internal);
    if (lease.is_sts) return { ttl: 0, max_ttl: 0 };
    const config = await this.store.get(mount.uuid, 'lease', 'lease');
    return { ttl: config?.state.lease ?? 0, max_ttl: config?.state.lease_max ?? 0 };
  }

  async revoke(mount: MountInfo, internal: unknown): Promise<void> {
    const lease = cloudBLeaseSchema.parse(internal);
    if (lease.is_sts) return;
    await this.removal.remove(mount.uuid, lease.username);
  }

  purgeMount(mountUuid: string): Promise<void> {
    return this.repo.purgeMount(mountUuid);
  }
}
