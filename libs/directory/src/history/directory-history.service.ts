import { Inject, Injectable } from '@nestjs/common';
import {
  engineHistoryQuestion,
  invalidRequest,
  type EngineHistoryStateRequest,
  type EngineHistoryStateResponse,
  type JsonObject,
} from '@coffer/contracts';
import type { EventStore, ServiceRuntime } from '@coffer/event-store';
import { directoryConfigView } from '../config/config.rules';
import { DIRECTORY_EVENT_STORE, DIRECTORY_RUNTIME } from '../directory.di';
import { directorySetView } from '../library/checkout.rules';
import { RECORD_LOG, recordStream, type RecordKind } from '../records/record.events';
import { evolve, type RecordState } from '../records/record.state';
import { directoryRoleView } from '../roles/role.rules';

/** The LIST paths and the kind of record each lists (`<path>/<name>` reads one). */
const LISTS: Readonly<Record<string, 'role' | 'set'>> = { roles: 'role', library: 'set' };

const PASSWORD_LAST_SET =
  'password_last_set is what the directory said at the read; it is not in the log, so it is left out';

/**
 * `directory.history.state`: `config`, `roles`, `roles/<name>`, `library` and `library/<name>` of a
 * directory mount as the live reads answered them at an instant. Each record is its own stream
 * (`directory-<kind>/<mount uuid>/<name>`), folded with the record's own `evolve` up to the
 * instant and shown by the live read's view, so what the live read hides (the bind password, the
 * roles' and accounts' passwords) is never in the answer. A LIST is every record stream's last
 * event then (one scan of the directory log, not indexed).
 */
@Injectable()
export class DirectoryHistoryService {
  constructor(
    @Inject(DIRECTORY_RUNTIME) private readonly runtime: Pick<ServiceRuntime, 'clock'>,
    @Inject(DIRECTORY_EVENT_STORE) private readonly store: EventStore,
  ) {}

  async state(req: EngineHistoryStateRequest): Promise<EngineHistoryStateResponse> {
    const { path, at } = engineHistoryQuestion(req, this.runtime.clock);
    const [head, name, ...rest] = path.split('/');
    const kind = head !== undefined && Object.hasOwn(LISTS, head) ? LISTS[head] : undefined;
    if (req.mount_type === 'directory' && rest.length === 0) {
      if (path === 'config') return this.configAt(req.mount_uuid, at);
      // names are kept lower-cased, as the live reads look them up
      if (kind && name === undefined) return this.listAt(req.mount_uuid, kind, at);
      if (kind && name) return this.recordAt(req.mount_uuid, kind, name.toLowerCase(), at);
    }
    throw invalidRequest(
      `no history of "${req.path}": config, roles, roles/<name>, library and library/<name> of a directory mount have one`,
    );
  }

  private async configAt(mountUuid: string, at: Date): Promise<EngineHistoryStateResponse> {
    const { state, wal } = await this.fold(mountUuid, 'config', 'config', at);
    if (state?.kind !== 'config') return { found: false, wal, state: null, warnings: [] };
    return { found: true, wal, state: directoryConfigView(state), warnings: [] };
  }

  private async recordAt(
    mountUuid: string,
    kind: 'role' | 'set',
    name: string,
    at: Date,
  ): Promise<EngineHistoryStateResponse> {
    const { state, wal } = await this.fold(mountUuid, kind, name, at);
    let view: JsonObject | undefined;
    if (state?.kind === 'role') view = directoryRoleView(state, null);
    if (state?.kind === 'set') view = directorySetView(state);
    if (view === undefined) return { found: false, wal, state: null, warnings: [] };
    return { found: true, wal, state: view, warnings: kind === 'role' ? [PASSWORD_LAST_SET] : [] };
  }

  /** The record then: its stream's events recorded at or before `at`, folded. */
  private async fold(
    mountUuid: string,
    kind: RecordKind,
    name: string,
    at: Date,
  ): Promise<{ state: RecordState | undefined; wal: number }> {
    return this.store.foldStreamAt<RecordState | undefined>(
      recordStream({ mountUuid, kind, name }),
      at,
      undefined,
      (state, stored) => evolve(kind, state, RECORD_LOG.decode(stored)),
    );
  }

  /**
   * As the live LIST: the names of the records that existed then (404 when none). Only a delete
   * ends a record, so a stream whose last event then is not one names a record.
   */
  private async listAt(
    mountUuid: string,
    kind: 'role' | 'set',
    at: Date,
  ): Promise<EngineHistoryStateResponse> {
    const prefix = recordStream({ mountUuid, kind, name: '' });
    const { names: keys, wal } = await this.store.namesAt(
      prefix,
      at,
      (last) => RECORD_LOG.decode(last).type !== 'DirectoryRecordDeleted',
    );
    if (keys.length === 0) return { found: false, wal, state: null, warnings: [] };
    return { found: true, wal, state: { keys }, warnings: [] };
  }
}
