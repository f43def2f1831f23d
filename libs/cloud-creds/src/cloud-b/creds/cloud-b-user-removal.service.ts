import { Inject, Injectable } from '@nestjs/common';
import { isConcurrencyError, type ServiceRuntime } from '@coffer/event-store';
import { CLOUD_CREDS_RUNTIME } from '../../cloud-creds.di';
import { cloudBClients } from '../aws/cloud-b-clients';
import { CLOUD_B_ENVIRONMENT, type CloudBEnvironment } from '../aws/cloud-b-environment';
import { deleteIamUser } from '../aws/cloud-b-iam-users';
import { CloudBRecordStore } from '../records/cloud-b-record.store';

/**
 * Removes an IAM user Coffer created, and its record: lease revocation, a failed creds request
 * and the recovery pass all end here. `UserRemovalStarted` is appended first (at the version
 * read, so a creds request still running loses its confirmation), then IAM is cleaned, then the
 * record goes. Idempotent; a failure throws the 502 and leaves the record for the next try.
 */
@Injectable()
export class CloudBUserRemoval {
  constructor(
    private readonly store: CloudBRecordStore,
    @Inject(CLOUD_B_ENVIRONMENT) private readonly env: CloudBEnvironment,
    @Inject(CLOUD_CREDS_RUNTIME) private readonly runtime: ServiceRuntime,
  ) {}

  async remove(mountUuid: string, userName: string): Promise<void> {
    let record = await this.store.get(mountUuid, 'user', userName);
    if (record && record.state.status !== 'removing') {
      await this.store
        .append(mountUuid, 'user', userName, record.version, [
          { type: 'CloudBUserRemovalStarted', data: { at: this.runtime.clock().toISOString() } },
        ])
        .catch((error: unknown) => {
          if (!isConcurrencyError(error)) throw error;
        });
    }
    const root = await this.store.get(mountUuid, 'root', 'root');
    const clients = cloudBClients(root?.state, this.env);
    try {
      await deleteIamUser(clients.iam, userName, { abortSignal: AbortSignal.timeout(clients.deadlineMs) });
    } finally {
      clients.destroy();
    }
    record = await this.store.get(mountUuid, 'user', userName);
    if (!record) return;
    await this.store
      .append(mountUuid, 'user', userName, record.version, [{ type: 'CloudBRecordDeleted', data: {} }])
      .catch((error: unknown) => {
        if (!isConcurrencyError(error)) throw error;
      });
  }
}
