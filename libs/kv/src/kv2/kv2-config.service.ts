import { Injectable } from '@nestjs/common';
import type { EngineRequest, EngineResponse } from '@coffer/contracts';
import { StreamWriter } from '../shared/stream-writer';
import { kvConfigStream } from '../shared/streams';
import { KvConfigEventLog } from './kv2-config.projection';
import { parseConfigInput } from './kv2.inputs';
import { Kv2Repository } from './kv2.repository';
import { configView } from './kv2.view';

/** config of a kv v2 mount: engine-wide max_versions, cas_required and delete_version_after. */
@Injectable()
export class Kv2ConfigService {
  constructor(
    private readonly repo: Kv2Repository,
    private readonly log: KvConfigEventLog,
    private readonly writer: StreamWriter,
  ) {}

  async read(req: EngineRequest): Promise<EngineResponse> {
    const { config } = await this.repo.loadConfig(req.mount.uuid);
    return { data: configView(config) };
  }

  async write(req: EngineRequest): Promise<EngineResponse> {
    const mountUuid = req.mount.uuid;
    await this.writer.run(kvConfigStream(mountUuid), async () => {
      const current = await this.repo.loadConfig(mountUuid);
      const next = parseConfigInput(req.body, current.config);
      if (!next) return;
      await this.log.append(
        { mountUuid, created: current.streamVersion === null },
        current.streamVersion ?? 'any',
        [{ type: 'KvConfigWritten', data: next }],
      );
    });
    return {};
  }
}
