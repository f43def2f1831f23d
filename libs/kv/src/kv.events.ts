import type { ServiceAggregate } from '@coffer/event-store';
import { CUBBYHOLE_LOG, FLAT_LOG } from './flat/flat.events';
import { KV2_LOG, KV_CONFIG_LOG } from './kv2/kv2.events';
import { MOUNT_PURGE_LOG } from './mounts/mount.events';

/** Every aggregate of the kv event log: the service's registry is composed of these. */
export const KV_LOGS: readonly ServiceAggregate[] = [
  KV2_LOG,
  KV_CONFIG_LOG,
  FLAT_LOG,
  CUBBYHOLE_LOG,
  MOUNT_PURGE_LOG,
];

/** Every event type of the kv log (for a registry reading it whole: tests, replication). */
export const KV_EVENT_TYPES = KV_LOGS.flatMap((log) => log.eventTypes);
