import { Injectable } from '@nestjs/common';
import type { MountInfo } from '@coffer/contracts';
import type { CloudLeaseBackend } from '../../shared/cloud-lease-backend';
import { CloudARecordRepository } from '../records/cloud-a-record.repository';
import { CloudACredsService } from './cloud-a-creds.service';

/** Leases of cloud-a creds: renewal follows the role's TTLs, revocation undoes the credential in Azure. */
@Injectable()
export class CloudALeaseBackend implements CloudLeaseBackend {
  readonly mountType = 'cloud-a';

  constructor(
    private readonly creds: CloudACredsService,
    private readonly repo: CloudARecordRepository,
  ) {}

  renew(mount: MountInfo, internal: unknown): Promise<{ ttl: number; max_ttl: number }> {
    return this.creds.renew(mount, internal);
  }

  revoke(mount: MountInfo, internal: unknown): Promise<void> {
    return this.creds.revoke(mount, internal);
  }

  purgeMount(mountUuid: string): Promise<void> {
    return this.repo.purgeMount(mountUuid);
  }
}
