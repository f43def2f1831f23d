import { Injectable } from '@nestjs/common';
import type { kvV2, RequestOf, ResponseOf } from '@coffer/contracts';
import { StreamWriter } from '../shared/stream-writer';
import { kvConfigStream } from '../shared/streams';
import { KvConfigEventLog } from './kv2-config.projection';
import { Kv2Repository } from './kv2.repository';
import type { EngineConfig } from './kv2.state';
import { configView } from './kv2.view';

/** config of a kv v2 mount: engine-wide max_versions, cas_required and delete_version_after. */
@Injectable()
export class Kv2ConfigService {
  constructor(
    private readonly repo: Kv2Repository,
    private readonly log: KvConfigEventLog,
    private readonly writer: StreamWriter,
  ) {}

  async read(req: RequestOf<typeof kvV2.configRead>): Promise<ResponseOf<typeof kvV2.configRead>> {
    const { config } = await this.repo.loadConfig(req.mount.uuid);
    return { data: configView(config) };
  }

  async write(req: RequestOf<typeof kvV2.configWrite>): Promise<ResponseOf<typeof kvV2.configWrite>> {
    const mountUuid = req.mount.uuid;
    const { max_versions, cas_required, delete_version_after } = req.body;
    if (max_versions === undefined && cas_required === undefined && delete_version_after === undefined) {
      return {};
    }
    await this.writer.run(kvConfigStream(mountUuid), async () => {
      const current = await this.repo.loadConfig(mountUuid);
      const next: EngineConfig = {
        maxVersions: max_versions ?? current.config.maxVersions,
        casRequired: cas_required ?? current.config.casRequired,
        deleteVersionAfter: delete_version_after ?? current.config.deleteVersionAfter,
      };
      await this.log.append(
        { mountUuid, created: current.streamVersion === null },
        current.streamVersion ?? 'any',
        [{ type: 'KvConfigWritten', data: next }],
      );
    });
    return {};
  }
}
