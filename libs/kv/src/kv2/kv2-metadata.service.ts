import { Inject, Injectable } from '@nestjs/common';
import { notFound, type EngineRequest, type EngineResponse, type Operation } from '@coffer/contracts';
import type { ServiceRuntime } from '@coffer/event-store';
import { KV_RUNTIME } from '../kv.di';
import { kv2InvalidPath, pathParam } from '../shared/engine-request';
import { assertSecretPath, listFolder } from '../shared/paths';
import { StreamWriter } from '../shared/stream-writer';
import { kvKeyStream } from '../shared/streams';
import { Vacuum } from '../shared/vacuum';
import {
  decideMetadataDelete,
  decideMetadataPatch,
  decideMetadataWrite,
  type MetadataDecision,
} from './kv2.decider';
import { parseMetadataPatch, parseMetadataWrite } from './kv2.inputs';
import { Kv2Repository } from './kv2.repository';
import { Kv2Store, type LoadedKey } from './kv2.store';
import { metadataView } from './kv2.view';

/** metadata/:path of kv v2: key settings, custom metadata, listing, removal of a whole key. */
@Injectable()
export class Kv2MetadataService {
  constructor(
    @Inject(KV_RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly repo: Kv2Repository,
    private readonly store: Kv2Store,
    private readonly vacuum: Vacuum,
    private readonly writer: StreamWriter,
  ) {}

  async read(req: EngineRequest): Promise<EngineResponse> {
    const path = this.keyPath(req, 'read');
    const { state } = await this.store.load(req.mount.uuid, path);
    if (!state) throw notFound();
    return { data: metadataView(state) };
  }

  /** Key names visible to any caller with list on the folder (no policy filtering, like Vault). */
  async list(req: EngineRequest): Promise<EngineResponse> {
    const keys = await this.repo.list(req.mount.uuid, listFolder(pathParam(req)));
    if (keys.length === 0) throw notFound();
    return { data: { keys } };
  }

  /** POST: creates the key's metadata when it has none; creates no version. */
  async write(req: EngineRequest): Promise<EngineResponse> {
    const path = this.keyPath(req, 'update');
    const input = parseMetadataWrite(req.body);
    return this.change(req.mount.uuid, path, (loaded) =>
      decideMetadataWrite(loaded.state, loaded.config, input, this.runtime.clock()),
    );
  }

  /** PATCH: JSON merge patch of the settings and custom metadata of an existing key. */
  async patch(req: EngineRequest): Promise<EngineResponse> {
    const path = this.keyPath(req, 'patch');
    return this.change(req.mount.uuid, path, (loaded) => {
      const input = parseMetadataPatch(req.body, loaded.state?.customMetadata ?? null);
      return decideMetadataPatch(loaded.state, loaded.config, input, this.runtime.clock());
    });
  }

  /** DELETE: the key, its metadata and every version go; all its data keys are erased. */
  async delete(req: EngineRequest): Promise<EngineResponse> {
    const path = this.keyPath(req, 'delete');
    const removed = await this.writer.run(kvKeyStream(req.mount.uuid, path), async () => {
      const loaded = await this.store.load(req.mount.uuid, path);
      const events = decideMetadataDelete(loaded.state);
      await this.store.append(req.mount.uuid, path, loaded, events);
      return events.length > 0;
    });
    if (removed) await this.vacuum.request();
    return {};
  }

  async exists(req: EngineRequest): Promise<{ exists: boolean }> {
    const path = pathParam(req);
    return { exists: path !== '' && (await this.repo.keyExists(req.mount.uuid, path)) };
  }

  private async change(
    mountUuid: string,
    path: string,
    decide: (loaded: LoadedKey) => MetadataDecision,
  ): Promise<EngineResponse> {
    const warnings = await this.writer.run(kvKeyStream(mountUuid, path), async () => {
      const loaded = await this.store.load(mountUuid, path);
      const decision = decide(loaded);
      await this.store.append(mountUuid, path, loaded, decision.events);
      return decision.warnings;
    });
    return { warnings };
  }

  private keyPath(req: EngineRequest, operation: Operation): string {
    const path = pathParam(req);
    if (path === '') throw kv2InvalidPath(operation, 'metadata');
    assertSecretPath(path);
    return path;
  }
}
