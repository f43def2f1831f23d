import { Inject, Injectable } from '@nestjs/common';
import {
  engineHistoryQuestion,
  invalidRequest,
  type EngineHistoryStateRequest,
  type EngineHistoryStateResponse,
} from '@coffer/contracts';
import type { EventStore, ServiceRuntime } from '@coffer/event-store';
import { CLOUD_CREDS_EVENT_STORE, CLOUD_CREDS_RUNTIME } from '../../cloud-creds.di';
import type { CloudHistoryBackend } from '../../shared/cloud-history-backend';
import { readableCloudAConfig } from '../config/cloud-a-config.rules';
import { CLOUD_A_LOG, cloudAStream, type CloudARecordKind } from '../records/cloud-a-record.events';
import { evolveCloudA, type CloudARecordState } from '../records/cloud-a-record.state';
import { cloudARoleView } from '../roles/cloud-a-role.rules';

const ROLE_PATH = /^roles\/([^/]+)$/;

/**
 * `cloud-creds.history.state` of a cloud-a mount: `config`, `roles` and `roles/<name>` as the live
 * reads answered them at an instant. Each record is its own stream
 * (`cloud-a-<kind>/<mount uuid>/<name>`), folded with `evolveCloudA` up to the instant and shown
 * by the live read's view (never the client secret; issued credentials have no read). The LIST is
 * every role stream's last event then (one scan of the cloud-creds log, not indexed).
 */
@Injectable()
export class CloudAHistoryService implements CloudHistoryBackend {
  readonly mountType = 'cloud-a';

  constructor(
    @Inject(CLOUD_CREDS_RUNTIME) private readonly runtime: Pick<ServiceRuntime, 'clock'>,
    @Inject(CLOUD_CREDS_EVENT_STORE) private readonly store: EventStore,
  ) {}

  async state(req: EngineHistoryStateRequest): Promise<EngineHistoryStateResponse> {
    const { path, at } = engineHistoryQuestion(req, this.runtime.clock);
    const name = ROLE_PATH.exec(path)?.[1];
    if (path === 'config') {
      const { state, wal } = await this.fold(req.mount_uuid, 'config', 'config', at);
      if (state?.kind !== 'config') return { found: false, wal, state: null, warnings: [] };
      return { found: true, wal, state: readableCloudAConfig(state.settings), warnings: [] };
    }
    if (path === 'roles') return this.listAt(req.mount_uuid, at);
    if (name === undefined)
      throw invalidRequest(
        `no history of "${req.path}": config, roles and roles/<name> of a cloud-a mount have one`,
      );
    const { state, wal } = await this.fold(req.mount_uuid, 'role', name, at);
    if (state?.kind !== 'role') return { found: false, wal, state: null, warnings: [] };
    return { found: true, wal, state: cloudARoleView(state.role), warnings: [] };
  }

  /** The record then: its stream's events recorded at or before `at`, folded. */
  private async fold(
    mountUuid: string,
    kind: CloudARecordKind,
    name: string,
    at: Date,
  ): Promise<{ state: CloudARecordState | undefined; wal: number }> {
    return this.store.foldStreamAt<CloudARecordState | undefined>(
      cloudAStream({ mountUuid, kind, name }),
      at,
      undefined,
      (state, stored) => evolveCloudA(kind, state, CLOUD_A_LOG.decode(stored)),
    );
  }

  /** As the live LIST: the names of the roles that existed then (404 when none). */
  private async listAt(mountUuid: string, at: Date): Promise<EngineHistoryStateResponse> {
    const prefix = cloudAStream({ mountUuid, kind: 'role', name: '' });
    const { names: keys, wal } = await this.store.namesAt(
      prefix,
      at,
      (last) => CLOUD_A_LOG.decode(last).type === 'CloudARoleWritten',
    );
    if (keys.length === 0) return { found: false, wal, state: null, warnings: [] };
    return { found: true, wal, state: { keys }, warnings: [] };
  }
}
