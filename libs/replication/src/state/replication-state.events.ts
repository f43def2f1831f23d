import { z } from 'zod';
import { REPLICATION_MODES, type ReplicationMode } from '@coffer/contracts/replication';
import { defineAggregateLog, defineEvent, type EventOf } from '@coffer/event-store';

/**
 * The replication state of one mode (DR or performance) of this cluster: one stream per mode,
 * `replication/<mode>`. Pre-shared keys of the cluster connection are in the events (which the
 * barrier encrypts) and sealed in the read model.
 */
const mode = z.enum(REPLICATION_MODES);

export const primaryEnabled = defineEvent(
  'ReplicationPrimaryEnabled',
  1,
  z.object({ mode, clusterId: z.string(), primaryClusterAddr: z.string() }),
);
export const primaryDemoted = defineEvent('ReplicationPrimaryDemoted', 1, z.object({ mode }));
export const primaryDisabled = defineEvent('ReplicationPrimaryDisabled', 1, z.object({ mode }));
export const secondaryTokenIssued = defineEvent(
  'ReplicationSecondaryTokenIssued',
  1,
  z.object({ mode, id: z.string(), psk: z.string(), expiresAtMs: z.number() }),
);
export const secondaryRevoked = defineEvent(
  'ReplicationSecondaryRevoked',
  1,
  z.object({ mode, id: z.string() }),
);
const primaryLink = z.object({
  clusterId: z.string(),
  secondaryId: z.string(),
  primaryClusterAddr: z.string(),
  primaryApiAddr: z.string(),
  psk: z.string(),
});
export const secondaryEnabled = defineEvent(
  'ReplicationSecondaryEnabled',
  1,
  z.object({ mode }).extend(primaryLink.shape),
);
export const primaryUpdated = defineEvent(
  'ReplicationPrimaryUpdated',
  1,
  z.object({ mode, link: primaryLink.nullable() }),
);
export const secondaryDisabled = defineEvent('ReplicationSecondaryDisabled', 1, z.object({ mode }));
export const secondaryPromoted = defineEvent(
  'ReplicationSecondaryPromoted',
  1,
  z.object({ mode, primaryClusterAddr: z.string(), forced: z.boolean() }),
);
export const pathsFilterWritten = defineEvent(
  'ReplicationPathsFilterWritten',
  1,
  z.object({ mode, id: z.string(), filterMode: z.enum(['allow', 'deny']), paths: z.array(z.string()) }),
);
export const pathsFilterDeleted = defineEvent(
  'ReplicationPathsFilterDeleted',
  1,
  z.object({ mode, id: z.string() }),
);
export const keyPairGenerated = defineEvent(
  'ReplicationKeyPairGenerated',
  1,
  z.object({ mode, publicKey: z.string(), privateKey: z.string() }),
);

/**
 * A secondary saw its primary stamp frames with a higher epoch than it knew (see ModeState.epoch):
 * from now on it refuses frames of any lower epoch.
 */
export const epochObserved = defineEvent(
  'ReplicationEpochObserved',
  1,
  z.object({ mode, epoch: z.number().int().nonnegative() }),
);

export const REPLICATION_STATE_EVENT_TYPES = {
  primaryEnabled,
  primaryDemoted,
  primaryDisabled,
  secondaryTokenIssued,
  secondaryRevoked,
  secondaryEnabled,
  primaryUpdated,
  secondaryDisabled,
  secondaryPromoted,
  pathsFilterWritten,
  pathsFilterDeleted,
  keyPairGenerated,
  epochObserved,
} as const;
export type ReplicationStateEvent = EventOf<typeof REPLICATION_STATE_EVENT_TYPES>;

export const replicationStream = (m: ReplicationMode): string => `replication/${m}`;

export const REPLICATION_STATE_LOG = defineAggregateLog({
  description: 'a replication state event',
  events: REPLICATION_STATE_EVENT_TYPES,
  stream: (key: { mode: ReplicationMode }) => replicationStream(key.mode),
});

/** Every aggregate of the replication service's log. */
export const REPLICATION_LOGS = [REPLICATION_STATE_LOG];
