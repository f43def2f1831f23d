import { Inject, Injectable } from '@nestjs/common';
import {
  engineHistoryQuestion,
  invalidRequest,
  isJsonObject,
  type EngineHistoryStateRequest,
  type EngineHistoryStateResponse,
} from '@coffer/contracts';
import { pkiRoleDataSchema } from '@coffer/contracts/pki';
import type { EventStore, ServiceRuntime } from '@coffer/event-store';
import { PKI_EVENT_STORE, PKI_RUNTIME } from '../pki.di';
import { documentStream } from '../shared/document.projection';
import { ROLE_LOG } from './role.events';

const ROLE_PATH = /^roles\/([^/]+)$/;
const ROLES_PATH = /^roles$/;

/**
 * `pki.history.state`: `roles/<name>` and the LIST `roles` of a pki mount as the live reads
 * answered them at an instant. A role is its own stream (`pki-role/<mount uuid>/<name>`), each
 * event the whole role: the last event recorded at or before the instant decides (written: the
 * role then; deleted: 404). The LIST `roles` is every role stream's last event then (one scan of
 * the pki log, not indexed).
 */
@Injectable()
export class RoleHistoryService {
  constructor(
    @Inject(PKI_RUNTIME) private readonly runtime: Pick<ServiceRuntime, 'clock'>,
    @Inject(PKI_EVENT_STORE) private readonly store: EventStore,
  ) {}

  async state(req: EngineHistoryStateRequest): Promise<EngineHistoryStateResponse> {
    const { path, at } = engineHistoryQuestion(req, this.runtime.clock);
    const name = ROLE_PATH.exec(path)?.[1];
    if (req.mount_type !== 'pki' || (name === undefined && !ROLES_PATH.test(path))) {
      throw invalidRequest(`no history of "${req.path}": roles and roles/<name> of a pki mount have one`);
    }
    if (name === undefined) return this.listAt(req.mount_uuid, at);
    const { state: role, wal } = await this.store.foldStreamAt<unknown>(
      documentStream({ mountUuid: req.mount_uuid, kind: 'role', name }),
      at,
      null,
      (_, stored) => {
        const event = ROLE_LOG.decode(stored);
        return event.type === 'PkiRoleWritten' ? event.data.role : null;
      },
    );
    // the live read's shape: the role as its contract's data schema answers it
    const state: unknown = role === null ? null : pkiRoleDataSchema.parse(role);
    if (!isJsonObject(state)) return { found: false, wal, state: null, warnings: [] };
    return { found: true, wal, state, warnings: [] };
  }

  /** As the live LIST: the names of the roles that existed then, sorted (an empty list when none). */
  private async listAt(mountUuid: string, at: Date): Promise<EngineHistoryStateResponse> {
    const prefix = documentStream({ mountUuid, kind: 'role', name: '' });
    const { names: keys, wal } = await this.store.namesAt(
      prefix,
      at,
      (last) => ROLE_LOG.decode(last).type === 'PkiRoleWritten',
    );
    return { found: true, wal, state: { keys }, warnings: [] };
  }
}
