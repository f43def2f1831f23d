import { Inject, Injectable } from '@nestjs/common';
import type { kvV2, RequestOf, ResponseOf } from '@coffer/contracts';
import type { ServiceRuntime } from '@coffer/event-store';
import { KV_RUNTIME } from '../kv.di';
import { kv2InvalidPath, pathParam } from '../shared/engine-request';
import { assertSecretPath } from '../shared/paths';
import { StreamWriter } from '../shared/stream-writer';
import { kvKeyStream } from '../shared/streams';
import { Vacuum } from '../shared/vacuum';
import { decideDeleteVersions, decideDestroy, decideUndelete } from './kv2.decider';
import type { Kv2Event } from './kv2.events';
import { Kv2Store, type LoadedKey } from './kv2.store';

/** delete, undelete and destroy share one request shape. */
type VersionsRequest = RequestOf<typeof kvV2.versionsDelete>;

/** delete/:path, undelete/:path and destroy/:path of kv v2. */
@Injectable()
export class Kv2VersionsService {
  constructor(
    @Inject(KV_RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly store: Kv2Store,
    private readonly vacuum: Vacuum,
    private readonly writer: StreamWriter,
  ) {}

  async delete(req: VersionsRequest): Promise<ResponseOf<typeof kvV2.versionsDelete>> {
    const { versions } = req.body;
    await this.change(req, (loaded) => decideDeleteVersions(loaded.state, versions, this.runtime.clock()));
    return {};
  }

  async undelete(req: VersionsRequest): Promise<ResponseOf<typeof kvV2.versionsUndelete>> {
    const { versions } = req.body;
    await this.change(req, (loaded) =>
      decideUndelete(loaded.state, loaded.config, versions, this.runtime.clock()),
    );
    return {};
  }

  /** Destroys the versions' data for good: their data keys are erased, then the heap vacuumed. */
  async destroy(req: VersionsRequest): Promise<ResponseOf<typeof kvV2.versionsDestroy>> {
    const { versions } = req.body;
    const destroyed = await this.change(req, (loaded) => decideDestroy(loaded.state, versions));
    if (destroyed) await this.vacuum.request();
    return {};
  }

  /** Decides on fresh state and appends, retrying on conflicts; true when events were appended. */
  private async change(req: VersionsRequest, decide: (loaded: LoadedKey) => Kv2Event[]): Promise<boolean> {
    const path = pathParam(req);
    if (path === '' || path.endsWith('/')) throw kv2InvalidPath('update', req.path);
    assertSecretPath(path);
    return this.writer.run(kvKeyStream(req.mount.uuid, path), async () => {
      const loaded = await this.store.load(req.mount.uuid, path);
      const events = decide(loaded);
      await this.store.append(req.mount.uuid, path, loaded, events);
      return events.length > 0;
    });
  }
}
