import { Inject, Injectable } from '@nestjs/common';
import {
  engineHistoryQuestion,
  invalidRequest,
  type EngineHistoryStateRequest,
  type EngineHistoryStateResponse,
  type JsonObject,
} from '@coffer/contracts';
import type { EventStore, ServiceRuntime, StoredEvent } from '@coffer/event-store';
import { z } from 'zod';
import { RECORD_LOG, recordStream, type RecordKind } from '../records/record.events';
import { SSH_EVENT_STORE, SSH_RUNTIME } from '../ssh.di';

const KEY_PATH = /^keys\/([^/]+)$/;
/** the public half of the CA record (its private key is never read out of the event) */
const caPublicSchema = z.object({ public_key: z.string() });

/**
 * `ssh.history.state` of `config/ca` and `keys/<name>` of an ssh mount at an instant. Each is one
 * record stream (`ssh-ca/<mount uuid>/ca`, `ssh-key/<mount uuid>/<name>`), each event the whole
 * record: the last one recorded at or before the instant decides. Public material only:
 * config/ca answers the CA's public key, as its live read does; a registered key has no live read
 * (its private key is write-only), so its history says only that it existed then.
 */
@Injectable()
export class SshCaHistoryService {
  constructor(
    @Inject(SSH_RUNTIME) private readonly runtime: Pick<ServiceRuntime, 'clock'>,
    @Inject(SSH_EVENT_STORE) private readonly store: EventStore,
  ) {}

  /** Whether `path` (inside the mount) is one this service answers. */
  handles(path: string): boolean {
    const clean = path.replace(/^\/+|\/+$/g, '');
    return clean === 'config/ca' || KEY_PATH.test(clean);
  }

  async state(req: EngineHistoryStateRequest): Promise<EngineHistoryStateResponse> {
    const { path, at } = engineHistoryQuestion(req, this.runtime.clock);
    const name = KEY_PATH.exec(path)?.[1];
    if (req.mount_type !== 'ssh' || (name === undefined && path !== 'config/ca')) {
      throw invalidRequest(`no history of "${req.path}": config/ca and keys/<name> of an ssh mount have one`);
    }
    const kind: RecordKind = name === undefined ? 'ca' : 'key';
    const { last, wal } = await this.lastAt(
      recordStream({ mountUuid: req.mount_uuid, kind, name: name ?? 'ca' }),
      at,
    );
    const event = last && RECORD_LOG.decode(last);
    if (event?.type !== 'SshRecordWritten') return { found: false, wal, state: null, warnings: [] };
    const state: JsonObject =
      name === undefined ? { public_key: caPublicSchema.parse(event.data.value).public_key } : { name };
    return { found: true, wal, state, warnings: [] };
  }

  private async lastAt(stream: string, at: Date): Promise<{ last: StoredEvent | undefined; wal: number }> {
    const { state: last, wal } = await this.store.foldStreamAt<StoredEvent | undefined>(
      stream,
      at,
      undefined,
      (_, stored) => stored,
    );
    return { last, wal };
  }
}
