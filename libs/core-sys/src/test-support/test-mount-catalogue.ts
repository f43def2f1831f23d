import { PLANNED_MOUNT_TYPES } from '@coffer/contracts';
import { mountCatalogueOf } from '@coffer/service-host';
import { coreSysEngine } from '../core-sys.engine';

/**
 * The catalogue a host hands core-sys, as `MOUNT_CATALOGUE` of `@coffer/engines` builds it: core-sys's
 * own types, kv's (another feature lib, so spelled out here as the specs mount them) and the planned ones.
 */
export const TEST_MOUNT_CATALOGUE = mountCatalogueOf(
  [coreSysEngine],
  [
    { type: 'kv', kind: 'secret', service: 'kv' },
    { type: 'cubbyhole', kind: 'secret', service: 'kv' },
    ...PLANNED_MOUNT_TYPES,
  ],
);
