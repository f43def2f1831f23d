import { Inject, Injectable } from '@nestjs/common';
import {
  engineHistoryQuestion,
  invalidRequest,
  type EngineHistoryStateRequest,
  type EngineHistoryStateResponse,
  type JsonObject,
} from '@coffer/contracts';
import type { EventStore, ServiceRuntime } from '@coffer/event-store';
import { CLOUD_CREDS_EVENT_STORE, CLOUD_CREDS_RUNTIME } from '../../cloud-creds.di';
import type { CloudHistoryBackend } from '../../shared/cloud-history-backend';
import { cloudBLeaseView, cloudBRootView } from '../config/cloud-b-config.rules';
import { CLOUD_B_LOG, cloudBStream, type CloudBRecordKind } from '../records/cloud-b-record.events';
import { evolveCloudB, type CloudBState } from '../records/cloud-b-record.state';
import { roleView } from '../roles/cloud-b-role.rules';

const ROLE_PATH = /^roles\/([^/]+)$/;

/**
 * `cloud-creds.history.state` of a cloud-b mount: `config/root`, `config/lease`, `roles` and
 * `roles/<name>` as the live reads answered them at an instant. Each record is its own stream
 * (`cloud-b-<kind>/<mount uuid>/<name>`), folded with `evolveCloudB` up to the instant and shown
 * by the live read's view (never the secret key; IAM users have no read). The LIST is every role
 * stream's last event then (one scan of the cloud-creds log, not indexed).
 */
@Injectable()
export class CloudBHistoryService implements CloudHistoryBackend {
  readonly mountType = 'cloud-b';

  constructor(
    @Inject(CLOUD_CREDS_RUNTIME) private readonly runtime: Pick<ServiceRuntime, 'clock'>,
    @Inject(CLOUD_CREDS_EVENT_STORE) private readonly store: EventStore,
  ) {}

  async state(req: EngineHistoryStateRequest): Promise<EngineHistoryStateResponse> {
    const { path, at } = engineHistoryQuestion(req, this.runtime.clock);
    if (path === 'roles') return this.listAt(req.mount_uuid, at);
    const name = ROLE_PATH.exec(path)?.[1];
    let record: { state: CloudBState | undefined; wal: number };
    if (path === 'config/root') record = await this.fold(req.mount_uuid, 'root', 'root', at);
    else if (path === 'config/lease') record = await this.fold(req.mount_uuid, 'lease', 'lease', at);
    else if (name !== undefined) record = await this.fold(req.mount_uuid, 'role', name, at);
    else
      throw invalidRequest(
        `no history of "${req.path}": config/root, config/lease, roles and roles/<name> of a cloud-b mount have one`,
      );
    const { state, wal } = record;
    let view: JsonObject | undefined;
    if (state?.kind === 'root') view = cloudBRootView(state);
    if (state?.kind === 'lease') view = cloudBLeaseView(state);
    if (state?.kind === 'role') view = roleView(state);
    if (view === undefined) return { found: false, wal, state: null, warnings: [] };
    return { found: true, wal, state: view, warnings: [] };
  }

  /** The record then: its stream's events recorded at or before `at`, folded. */
  private async fold(
    mountUuid: string,
    kind: CloudBRecordKind,
    name: string,
    at: Date,
  ): Promise<{ state: CloudBState | undefined; wal: number }> {
    return this.store.foldStreamAt<CloudBState | undefined>(
      cloudBStream({ mountUuid, kind, name }),
      at,
      undefined,
      (state, stored) => evolveCloudB(state, CLOUD_B_LOG.decode(stored)),
    );
  }

  /** As the live LIST: the names of the roles that existed then (404 when none). */
  private async listAt(mountUuid: string, at: Date): Promise<EngineHistoryStateResponse> {
    const prefix = cloudBStream({ mountUuid, kind: 'role', name: '' });
    const { names: keys, wal } = await this.store.namesAt(
      prefix,
      at,
      (last) => CLOUD_B_LOG.decode(last).type === 'CloudBRoleWritten',
    );
    if (keys.length === 0) return { found: false, wal, state: null, warnings: [] };
    return { found: true, wal, state: { keys }, warnings: [] };
  }
}
