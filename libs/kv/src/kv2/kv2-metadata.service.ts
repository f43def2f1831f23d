import { Inject, Injectable } from '@nestjs/common';
import {
  notFound,
  setOwn,
  type EngineRequest,
  type kvV2,
  type Operation,
  type RequestOf,
  type ResponseOf,
} from '@coffer/contracts';
import type { ServiceRuntime } from '@coffer/event-store';
import { KV_RUNTIME } from '../kv.di';
import { kv2InvalidPath, pathParam, type PathedRequest } from '../shared/engine-request';
import { assertSecretPath, listFolder } from '../shared/paths';
import { StreamWriter } from '../shared/stream-writer';
import { kvKeyStream } from '../shared/streams';
import { Vacuum } from '../shared/vacuum';
import {
  decideMetadataDelete,
  decideMetadataPatch,
  decideMetadataWrite,
  type MetadataDecision,
  type MetadataInput,
} from './kv2.decider';
import { Kv2Repository } from './kv2.repository';
import { Kv2Store, type LoadedKey } from './kv2.store';
import { metadataView } from './kv2.view';

type MetadataBody = RequestOf<typeof kvV2.metadataWrite>['body'];

/** The key settings of a metadata write; custom_metadata is the caller's to set. */
function settingsOf(body: Omit<MetadataBody, 'custom_metadata'>): MetadataInput {
  return {
    maxVersions: body.max_versions,
    casRequired: body.cas_required,
    deleteVersionAfter: body.delete_version_after,
  };
}

/** A merge patch of custom metadata: a null removes its key. Keys stay own properties. */
function patchedMap(
  current: Record<string, string> | null,
  patch: Record<string, string | null>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(current ?? {})) setOwn(out, key, value);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else setOwn(out, key, value);
  }
  return out;
}

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

  async read(req: RequestOf<typeof kvV2.metadataRead>): Promise<ResponseOf<typeof kvV2.metadataRead>> {
    const path = this.keyPath(req, 'read');
    const { state } = await this.store.load(req.mount.uuid, path);
    if (!state) throw notFound();
    return { data: metadataView(state) };
  }

  /** Key names visible to any caller with list on the folder (no policy filtering, like Vault). */
  async list(req: RequestOf<typeof kvV2.metadataList>): Promise<ResponseOf<typeof kvV2.metadataList>> {
    const keys = await this.repo.list(req.mount.uuid, listFolder(pathParam(req)));
    if (keys.length === 0) throw notFound();
    return { data: { keys } };
  }

  /** POST: creates the key's metadata when it has none; creates no version. */
  async write(req: RequestOf<typeof kvV2.metadataWrite>): Promise<ResponseOf<typeof kvV2.metadataWrite>> {
    const path = this.keyPath(req, 'update');
    const input: MetadataInput = { ...settingsOf(req.body), customMetadata: req.body.custom_metadata };
    return this.change(req.mount.uuid, path, (loaded) =>
      decideMetadataWrite(loaded.state, loaded.config, input, this.runtime.clock()),
    );
  }

  /** PATCH: JSON merge patch of the settings and custom metadata of an existing key. */
  async patch(req: RequestOf<typeof kvV2.metadataPatch>): Promise<ResponseOf<typeof kvV2.metadataPatch>> {
    const path = this.keyPath(req, 'patch');
    const patch = req.body.custom_metadata;
    return this.change(req.mount.uuid, path, (loaded) => {
      const input = settingsOf(req.body);
      if (patch !== undefined) input.customMetadata = patchedMap(loaded.state?.customMetadata ?? null, patch);
      return decideMetadataPatch(loaded.state, loaded.config, input, this.runtime.clock());
    });
  }

  /** DELETE: the key, its metadata and every version go; all its data keys are erased. */
  async delete(req: RequestOf<typeof kvV2.metadataDelete>): Promise<ResponseOf<typeof kvV2.metadataDelete>> {
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
  ): Promise<{ warnings: string[] }> {
    const warnings = await this.writer.run(kvKeyStream(mountUuid, path), async () => {
      const loaded = await this.store.load(mountUuid, path);
      const decision = decide(loaded);
      await this.store.append(mountUuid, path, loaded, decision.events);
      return decision.warnings;
    });
    return { warnings };
  }

  private keyPath(req: PathedRequest, operation: Operation): string {
    const path = pathParam(req);
    if (path === '') throw kv2InvalidPath(operation, 'metadata');
    assertSecretPath(path);
    return path;
  }
}
