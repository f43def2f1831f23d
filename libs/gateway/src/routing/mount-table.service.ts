import { Inject, Injectable } from '@nestjs/common';
import { coreMountTable, type MountEntry } from '@coffer/contracts';
import { CachedValue, type Transport } from '@coffer/transport';
import {
  CORE_LOOKUP_TIMEOUT_MS,
  GATEWAY_OPTIONS,
  GATEWAY_TRANSPORT,
  resolveCacheOptions,
  type GatewayOptions,
} from '../gateway.options';
import { MountIndex } from './mount-index';

/**
 * While sealed (or before init) core-sys cannot read its mount table; only the system backend's
 * allowSealed routes (init, seal-status, unseal, health) are served, from this built-in mount.
 */
export const SEALED_SYSTEM_MOUNT: MountEntry = {
  path: 'sys/',
  uuid: 'system',
  accessor: 'system',
  type: 'system',
  namespace: '',
  options: {},
  config: { default_lease_ttl: 0, max_lease_ttl: 0 },
  description: 'system endpoints used for control, policy and debugging',
  table: 'system',
  local: false,
  seal_wrap: false,
};
export const SEALED_MOUNT_INDEX = new MountIndex([SEALED_SYSTEM_MOUNT]);

/** core-sys's mount table as a longest-prefix index, re-read on the "mounts" invalidation. */
@Injectable()
export class MountTableService {
  private readonly table: CachedValue<MountIndex>;

  constructor(
    @Inject(GATEWAY_TRANSPORT) transport: Transport,
    @Inject(GATEWAY_OPTIONS) options: GatewayOptions,
  ) {
    this.table = new CachedValue(async () => {
      const { mounts, revision } = await transport.request(
        coreMountTable,
        {},
        { timeoutMs: CORE_LOOKUP_TIMEOUT_MS },
      );
      return new MountIndex(mounts, revision);
    }, resolveCacheOptions(options.cache).maxAgeMs);
  }

  get(): Promise<MountIndex> {
    return this.table.get();
  }

  invalidate(): void {
    this.table.invalidate();
  }
}
