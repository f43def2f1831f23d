import { Inject, Injectable } from '@nestjs/common';
import {
  engineHistoryQuestion,
  invalidRequest,
  isJsonObject,
  type EngineHistoryStateRequest,
  type EngineHistoryStateResponse,
} from '@coffer/contracts';
import type { EventStore, ServiceRuntime, StoredEvent } from '@coffer/event-store';
import { RECORD_LOG, recordStream } from '../records/record.events';
import { SSH_EVENT_STORE, SSH_RUNTIME } from '../ssh.di';
import { roleView } from './role.decider';
import { sshRoleSchema, type SshRole } from './role.model';

const ROLE_PATH = /^roles\/([^/]+)$/;
const ROLES_PATH = /^roles$/;

/**
 * `ssh.history.state`: `roles/<name>` and the LIST `roles` of an ssh mount as the live reads
 * answered them at an instant. A role is its own stream (`ssh-role/<mount uuid>/<name>`), each
 * event the whole role: the last event recorded at or before the instant decides (written: the
 * role then; deleted: gone). The LIST is every role stream's last event then (one scan of the
 * ssh log, not indexed).
 */
@Injectable()
export class SshRoleHistoryService {
  constructor(
    @Inject(SSH_RUNTIME) private readonly runtime: Pick<ServiceRuntime, 'clock'>,
    @Inject(SSH_EVENT_STORE) private readonly store: EventStore,
  ) {}

  async state(req: EngineHistoryStateRequest): Promise<EngineHistoryStateResponse> {
    const { path, at } = engineHistoryQuestion(req, this.runtime.clock);
    const name = ROLE_PATH.exec(path)?.[1];
    if (req.mount_type !== 'ssh' || (name === undefined && !ROLES_PATH.test(path))) {
      throw invalidRequest(`no history of "${req.path}": roles and roles/<name> of an ssh mount have one`);
    }
    return name === undefined ? this.listAt(req.mount_uuid, at) : this.roleAt(req.mount_uuid, name, at);
  }

  private async roleAt(mountUuid: string, name: string, at: Date): Promise<EngineHistoryStateResponse> {
    const { state: role, wal } = await this.store.foldStreamAt<SshRole | null>(
      recordStream({ mountUuid, kind: 'role', name }),
      at,
      null,
      (_, stored) => roleOf(stored),
    );
    // the live read's shape
    const state: unknown = role === null ? null : roleView(role);
    if (!isJsonObject(state)) return { found: false, wal, state: null, warnings: [] };
    return { found: true, wal, state, warnings: [] };
  }

  /** As the live LIST: the names (sorted) with key_info naming their key types; 404 when none. */
  private async listAt(mountUuid: string, at: Date): Promise<EngineHistoryStateResponse> {
    const prefix = recordStream({ mountUuid, kind: 'role', name: '' });
    const keys: string[] = [];
    const keyInfo: Record<string, { key_type: string }> = {};
    let wal = 0;
    for (const stored of await this.store.lastEventsOfPrefixAt(prefix, at)) {
      wal = Math.max(wal, stored.wal);
      const role = roleOf(stored);
      if (role === null) continue;
      const name = stored.stream.slice(prefix.length);
      keys.push(name);
      Object.defineProperty(keyInfo, name, { value: { key_type: role.key_type }, enumerable: true });
    }
    if (keys.length === 0) return { found: false, wal, state: null, warnings: [] };
    return { found: true, wal, state: { keys, key_info: keyInfo }, warnings: [] };
  }
}

/** The role an event leaves behind: null after a delete. */
function roleOf(stored: StoredEvent): SshRole | null {
  const event = RECORD_LOG.decode(stored);
  return event.type === 'SshRecordWritten' ? sshRoleSchema.parse(event.data.value) : null;
}
