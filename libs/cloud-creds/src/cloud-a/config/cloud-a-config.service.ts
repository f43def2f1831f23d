import { Injectable } from '@nestjs/common';
import { notFound, type RequestOf, type ResponseOf } from '@coffer/contracts';
import type { cloudA } from '@coffer/contracts/cloud-a';
import { retryOnConflict } from '@coffer/event-store';
import { CloudAAzure } from '../azure/cloud-a-azure';
import { CLOUD_A_RECORDS_PK } from '../cloud-a.table';
import { CloudARecordStore } from '../records/cloud-a-record.store';
import { cloudAConnection, mergeCloudAConfig, readableCloudAConfig } from './cloud-a-config.rules';
import { CloudAEnv } from './cloud-a-env';

export const CLOUD_A_RETRY = { attempts: 10, uniqueConstraints: [CLOUD_A_RECORDS_PK] };

/** config (write, read without the secret, delete) and the Azure client of a mount. */
@Injectable()
export class CloudAConfigService {
  constructor(
    private readonly store: CloudARecordStore,
    private readonly env: CloudAEnv,
  ) {}

  async write(req: RequestOf<typeof cloudA.configWrite>): Promise<ResponseOf<typeof cloudA.configWrite>> {
    const mountUuid = req.mount.uuid;
    await retryOnConflict(async () => {
      const existing = await this.store.get(mountUuid, 'config', 'config');
      const settings = mergeCloudAConfig(req.body, existing?.state.settings, this.env);
      await this.store.append(
        mountUuid,
        'config',
        'config',
        await this.store.versionOf(mountUuid, 'config', 'config', existing),
        [{ type: 'CloudAConfigWritten', data: { settings } }],
      );
    }, CLOUD_A_RETRY);
    return {};
  }

  async read(req: RequestOf<typeof cloudA.configRead>): Promise<ResponseOf<typeof cloudA.configRead>> {
    const config = await this.store.get(req.mount.uuid, 'config', 'config');
    if (!config) throw notFound();
    return { data: readableCloudAConfig(config.state.settings) };
  }

  async delete(req: RequestOf<typeof cloudA.configDelete>): Promise<ResponseOf<typeof cloudA.configDelete>> {
    await retryOnConflict(async () => {
      const existing = await this.store.get(req.mount.uuid, 'config', 'config');
      if (!existing) return;
      await this.store.append(req.mount.uuid, 'config', 'config', existing.version, [
        { type: 'CloudARecordDeleted', data: {} },
      ]);
    }, CLOUD_A_RETRY);
    return {};
  }

  /** The mount's Azure client: stored config with the CLOUDA_* overrides. */
  async azure(mountUuid: string): Promise<CloudAAzure> {
    const config = await this.store.get(mountUuid, 'config', 'config');
    return new CloudAAzure(cloudAConnection(config?.state.settings, this.env));
  }
}
