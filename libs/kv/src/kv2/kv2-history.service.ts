import { Inject, Injectable } from '@nestjs/common';
import {
  DomainError,
  invalidRequest,
  isJsonObject,
  type EngineHistoryStateRequest,
  type EngineHistoryStateResponse,
} from '@coffer/contracts';
import type { EventStore, ServiceRuntime, StoredEvent } from '@coffer/event-store';
import { KV_EVENT_STORE, KV_RUNTIME } from '../kv.di';
import { DataKeyCipher, kv2Location } from '../shared/data-keys';
import { KvListHistoryService } from '../shared/kv-list-history.service';
import { assertSecretPath } from '../shared/paths';
import { kvConfigStream, kvKeyStream } from '../shared/streams';
import { evolve } from './kv2.decider';
import { KV_CONFIG_LOG, KV2_LOG } from './kv2.events';
import { Kv2Repository } from './kv2.repository';
import { DEFAULT_ENGINE_CONFIG, isDeleted, type EngineConfig, type KeyState } from './kv2.state';
import { configView, metadataView, versionMetadataView } from './kv2.view';

const KNOWN =
  'config, metadata/<key>, data/<key> and the LIST of metadata/<folder> of a kv v2 mount, and the LIST of a kv v1 folder, have a history';
const SHREDDED =
  'the data of this version was destroyed (or pruned, or its key deleted) since: destroyed data stays destroyed';

/** Where a version's sealed data was, by version number: its data key id and ciphertext. */
type Sealed = Map<number, { keyId: string; ciphertext: string }>;

/**
 * `kv.history.state`: a kv v2 path as its live read answered at an instant, rebuilt by folding
 * the events of that one stream (the key's or the mount config's) up to the instant, never the
 * whole log. A past value is opened only with its data key, which exists only while the version
 * is neither destroyed nor pruned nor its key deleted: crypto-shredding wins over history.
 */
@Injectable()
export class Kv2HistoryService {
  constructor(
    @Inject(KV_RUNTIME) private readonly runtime: ServiceRuntime,
    @Inject(KV_EVENT_STORE) private readonly store: EventStore,
    private readonly repo: Kv2Repository,
    private readonly dataKeys: DataKeyCipher,
    private readonly lists: KvListHistoryService,
  ) {}

  async state(req: EngineHistoryStateRequest): Promise<EngineHistoryStateResponse> {
    const versioned = req.mount_options['version'] === '2';
    if (req.mount_type === 'kv' && req.query['list'] === 'true') {
      const path = req.path.replace(/^\/+/, '');
      // kv v1 lists any folder; kv v2 the folders of metadata/ only
      const folder = versioned ? /^metadata(?:\/(.*))?$/s.exec(path)?.[1] : path;
      if (folder === undefined) throw invalidRequest(`no history of "${req.path}": ${KNOWN}`);
      return this.lists.listAt(req.mount_uuid, folder, this.instant(req.at), versioned);
    }
    if (req.mount_type !== 'kv' || !versioned) {
      throw invalidRequest(`no history of "${req.path}": ${KNOWN}`);
    }
    const at = this.instant(req.at);
    const path = req.path.replace(/^\/+|\/+$/g, '');
    if (path === 'config') return this.configAt(req.mount_uuid, at);
    const [, kind, key = ''] = /^(metadata|data)\/(.+)$/.exec(path) ?? [];
    if (kind === undefined) throw invalidRequest(`no history of "${req.path}": ${KNOWN}`);
    assertSecretPath(key);
    const folded = await this.keyAt(req.mount_uuid, key, at);
    if (kind === 'metadata') {
      return folded.state
        ? { found: true, wal: folded.wal, state: metadataView(folded.state), warnings: [] }
        : { found: false, wal: folded.wal, state: null, warnings: [] };
    }
    return this.dataAt(req, key, at, folded);
  }

  private instant(at: string | undefined): Date {
    if (at === undefined) return this.runtime.clock();
    const time = new Date(at);
    if (Number.isNaN(time.getTime())) throw invalidRequest('at must be an RFC 3339 time');
    return time;
  }

  /**
   * The stream's events recorded at or before `at`: on a secondary the primary's (kv_replica's)
   * merged with the own log's by time, a promotion's fold copies left for the originals.
   */
  private eventsAt(stream: string, at: Date): Promise<StoredEvent[]> {
    return this.store.historyOf(stream, at);
  }

  private async configAt(mountUuid: string, at: Date): Promise<EngineHistoryStateResponse> {
    let config: EngineConfig = { ...DEFAULT_ENGINE_CONFIG };
    let wal = 0;
    for (const event of await this.eventsAt(kvConfigStream(mountUuid), at)) {
      config = { ...KV_CONFIG_LOG.decode(event).data };
      wal = event.wal;
    }
    return { found: true, wal, state: configView(config), warnings: [] };
  }

  async keyAt(
    mountUuid: string,
    key: string,
    at: Date,
  ): Promise<{ state: KeyState | null; sealed: Sealed; wal: number }> {
    let state: KeyState | null = null;
    let sealed: Sealed = new Map();
    let wal = 0;
    for (const stored of await this.eventsAt(kvKeyStream(mountUuid, key), at)) {
      const event = KV2_LOG.decode(stored);
      state = evolve(state, event);
      wal = stored.wal;
      if (event.type === 'SecretVersionWritten') {
        sealed.set(event.data.version, { keyId: event.data.keyId, ciphertext: event.data.ciphertext });
      } else if (event.type === 'SecretMetadataDeleted') {
        sealed = new Map();
      }
    }
    return { state, sealed, wal };
  }

  /**
   * data/<key>?version= as it answered then: 404 (with the version's metadata) when it did not
   * exist, was deleted or destroyed then; its value only when the caller may read it now and
   * its data key still exists.
   */
  private async dataAt(
    req: EngineHistoryStateRequest,
    key: string,
    at: Date,
    folded: { state: KeyState | null; sealed: Sealed; wal: number },
  ): Promise<EngineHistoryStateResponse> {
    const { state, wal } = folded;
    const asked = req.query['version'];
    if (asked !== undefined && !/^[0-9]{1,9}$/.test(asked)) throw invalidRequest('version must be a number');
    const number = asked === undefined || asked === '0' ? (state?.currentVersion ?? 0) : Number(asked);
    const version = state?.versions.get(number);
    if (!state || !version) return { found: false, wal, state: null, warnings: [] };
    const metadata = versionMetadataView(state, number, version);
    if (version.destroyed || isDeleted(version, at)) {
      return { found: false, wal, state: { data: null, metadata }, warnings: [] };
    }
    if (!req.values) throw new DomainError('permission_denied', 'permission denied');
    const sealed = folded.sealed.get(number);
    const wrappedKey = sealed && (await this.repo.wrappedKey(sealed.keyId));
    if (!sealed || !wrappedKey) {
      return { found: false, wal, state: { data: null, metadata }, warnings: [SHREDDED] };
    }
    const plaintext = this.dataKeys.open(
      { keyId: sealed.keyId, wrappedKey, ciphertext: Buffer.from(sealed.ciphertext, 'base64') },
      kv2Location(req.mount_uuid, key, number),
    );
    const data: unknown = JSON.parse(plaintext.toString('utf8'));
    if (!isJsonObject(data)) throw new DomainError('internal', 'kv: stored data is not an object');
    return { found: true, wal, state: { data, metadata }, warnings: [] };
  }
}
