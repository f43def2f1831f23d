import { Inject, Injectable } from '@nestjs/common';
import {
  DomainError,
  isJsonObject,
  notFound,
  type EngineRequest,
  type JsonObject,
  type kvV2,
  type Operation,
  type RequestOf,
  type ResponseOf,
} from '@coffer/contracts';
import { AppendLink, type ServiceRuntime } from '@coffer/event-store';
import { KV_RUNTIME } from '../kv.di';
import { DataKeyCipher, kv2Location } from '../shared/data-keys';
import { kv2InvalidPath, pathParam, type PathedRequest } from '../shared/engine-request';
import { mergePatch } from '../shared/merge-patch';
import { assertSecretPath } from '../shared/paths';
import { StreamWriter } from '../shared/stream-writer';
import { kvKeyStream } from '../shared/streams';
import {
  decideDeleteLatest,
  decidePatch,
  decideWrite,
  evolve,
  writeEvents,
  type WritePlan,
} from './kv2.decider';
import type { Kv2Event } from './kv2.events';
import { toVersionState } from './kv2.mapping';
import { Kv2Repository, type VersionReadRow } from './kv2.repository';
import { isDeleted, type KeyState } from './kv2.state';
import { Kv2Store, type LoadedKey } from './kv2.store';
import { subkeys } from './subkeys';
import { versionMetadataView, type VersionMetadataView } from './kv2.view';

/** data/:path and subkeys/:path of kv v2. */
@Injectable()
export class Kv2DataService {
  constructor(
    @Inject(KV_RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly repo: Kv2Repository,
    private readonly store: Kv2Store,
    private readonly dataKeys: DataKeyCipher,
    private readonly writer: StreamWriter,
  ) {}

  async read(req: RequestOf<typeof kvV2.dataRead>): Promise<ResponseOf<typeof kvV2.dataRead>> {
    const path = this.secretPath(req, 'read');
    const found = await this.readLive(req.mount.uuid, path, req.query.version, 'data');
    return { data: { data: this.open(found.row, req.mount.uuid, path), metadata: found.metadata } };
  }

  async subkeys(req: RequestOf<typeof kvV2.subkeysRead>): Promise<ResponseOf<typeof kvV2.subkeysRead>> {
    const path = this.secretPath(req, 'read');
    const { version, depth } = req.query;
    const found = await this.readLive(req.mount.uuid, path, version, 'subkeys');
    return {
      data: { subkeys: subkeys(this.open(found.row, req.mount.uuid, path), depth), metadata: found.metadata },
    };
  }

  async write(req: RequestOf<typeof kvV2.dataWrite>): Promise<ResponseOf<typeof kvV2.dataWrite>> {
    const path = this.secretPath(req, 'update');
    const { data, options } = req.body;
    const plaintext = Buffer.from(JSON.stringify(data), 'utf8');
    // pipelined: concurrent writes of one key are decided one after the other, each on the state
    // the previous leaves, and commit together (see StreamWriter.pipeline)
    return this.writer.pipeline<LoadedKey, ResponseOf<typeof kvV2.dataWrite>>(
      kvKeyStream(req.mount.uuid, path),
      async (prior) => {
        const loaded = prior?.state ?? (await this.store.load(req.mount.uuid, path));
        const plan = decideWrite(loaded.state, loaded.config, {
          cas: options.cas,
          now: this.runtime.clock(),
        });
        const link = new AppendLink();
        const { events, done } = this.submitVersion(req.mount.uuid, path, loaded, plan, plaintext, {
          link,
          ...(prior ? { after: prior.link } : {}),
        });
        // after a create the stream's version is known only once committed: the next write loads
        const next: LoadedKey | undefined =
          loaded.streamVersion === null
            ? undefined
            : {
                config: loaded.config,
                state: events.reduce<KeyState | null>(evolve, loaded.state),
                streamVersion: loaded.streamVersion + events.length,
              };
        return { next, link, done };
      },
    );
  }

  /** JSON merge patch of the current version into a new version. */
  async patch(req: RequestOf<typeof kvV2.dataPatch>): Promise<ResponseOf<typeof kvV2.dataPatch>> {
    const path = this.secretPath(req, 'patch');
    const { data, options } = req.body;
    return this.writer.run(kvKeyStream(req.mount.uuid, path), async () => {
      const loaded = await this.store.load(req.mount.uuid, path);
      const plan = decidePatch(loaded.state, loaded.config, { cas: options.cas, now: this.runtime.clock() });
      const current = await this.repo.readVersion(req.mount.uuid, path, plan.version - 1);
      if (!current) throw notFound();
      const patched = mergePatch(this.open(current, req.mount.uuid, path), data);
      const plaintext = Buffer.from(JSON.stringify(isJsonObject(patched) ? patched : {}), 'utf8');
      return this.appendVersion(req.mount.uuid, path, loaded, plan, plaintext);
    });
  }

  /** DELETE data/:path: soft-deletes the latest version. */
  async deleteLatest(req: RequestOf<typeof kvV2.dataDelete>): Promise<ResponseOf<typeof kvV2.dataDelete>> {
    const path = this.secretPath(req, 'delete');
    await this.writer.run(kvKeyStream(req.mount.uuid, path), async () => {
      const loaded = await this.store.load(req.mount.uuid, path);
      await this.store.append(
        req.mount.uuid,
        path,
        loaded,
        decideDeleteLatest(loaded.state, this.runtime.clock()),
      );
    });
    return {};
  }

  async exists(req: EngineRequest): Promise<{ exists: boolean }> {
    const path = pathParam(req);
    return { exists: path !== '' && (await this.repo.keyExists(req.mount.uuid, path)) };
  }

  private async appendVersion(
    mountUuid: string,
    path: string,
    loaded: LoadedKey,
    plan: WritePlan,
    plaintext: Buffer,
  ): Promise<ResponseOf<typeof kvV2.dataWrite>> {
    return this.submitVersion(mountUuid, path, loaded, plan, plaintext).done;
  }

  /** Seals the version and queues its append (synchronously); `done` settles once it committed. */
  private submitVersion(
    mountUuid: string,
    path: string,
    loaded: LoadedKey,
    plan: WritePlan,
    plaintext: Buffer,
    chain: { link?: AppendLink; after?: AppendLink } = {},
  ): { events: Kv2Event[]; done: Promise<ResponseOf<typeof kvV2.dataWrite>> } {
    const sealed = this.dataKeys.seal(plaintext, kv2Location(mountUuid, path, plan.version));
    const events = writeEvents(plan, {
      keyId: sealed.keyId,
      ciphertext: sealed.ciphertext.toString('base64'),
    });
    const version = { createdTime: plan.createdTime, deletionTime: plan.deletionTime, destroyed: false };
    const response = {
      data: versionMetadataView(
        { customMetadata: loaded.state?.customMetadata ?? null },
        plan.version,
        version,
      ),
    };
    const done = this.store.append(mountUuid, path, loaded, events, [sealed], chain).then(() => response);
    return { events, done };
  }

  /**
   * The requested version, if it exists and is live. A soft-deleted or destroyed version answers
   * 404 with its metadata in the body (`data: null` or `subkeys: null`), like Vault.
   */
  private async readLive(
    mountUuid: string,
    path: string,
    version: number,
    dataField: 'data' | 'subkeys',
  ): Promise<{ row: VersionReadRow; metadata: VersionMetadataView }> {
    const row = await this.repo.readVersion(mountUuid, path, version);
    if (!row || row.version === null || row.v_created_ms === null) throw notFound();
    const state = toVersionState(row.v_created_ms, row.deletion_ms, row.destroyed ?? false);
    const custom = this.store.openCustomMetadata(row.custom_metadata, mountUuid, path);
    const metadata = versionMetadataView({ customMetadata: custom }, row.version, state);
    if (state.destroyed || isDeleted(state, this.runtime.clock())) {
      throw notFound({ [dataField]: null, metadata });
    }
    return { row, metadata };
  }

  private open(row: VersionReadRow, mountUuid: string, path: string): JsonObject {
    if (row.version === null || !row.key_id || !row.ciphertext || !row.wrapped) {
      throw new DomainError('internal', 'kv: the data key of a live version is missing');
    }
    const plaintext = this.dataKeys.open(
      { keyId: row.key_id, wrappedKey: row.wrapped, ciphertext: row.ciphertext },
      kv2Location(mountUuid, path, row.version),
    );
    const data: unknown = JSON.parse(plaintext.toString('utf8'));
    if (!isJsonObject(data)) throw new DomainError('internal', 'kv: stored data is not an object');
    return data;
  }

  private secretPath(req: PathedRequest, operation: Operation): string {
    const path = pathParam(req);
    if (path === '' || path.endsWith('/')) throw kv2InvalidPath(operation, req.path);
    assertSecretPath(path);
    return path;
  }
}
