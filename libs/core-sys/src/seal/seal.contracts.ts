import { coreBarrierKeyring, defineContract } from '@coffer/contracts';

/**
 * core-sys internal keyring contracts (same payloads as coreBarrierKeyring, MAC-checked the same
 * way). Engines only ever use coreBarrierKeyring; these separate who answers.
 */

/** Queue group of the leader-only subjects (only the seal leader subscribes). */
export const LEADER_QUEUE = 'core-sys-leader';
/** Queue group of the replicas currently holding the keyring. */
export const PEER_QUEUE = 'core-sys-peers';
/** Queue group every core-sys replica serves engine-facing contracts in. */
export const SERVICE_QUEUE = 'core-sys';

/** The leader's keyring state: the followers' (and engines') source of truth. */
export const leaderKeyring = defineContract(
  'core.sys.leader.keyring',
  coreBarrierKeyring.request,
  coreBarrierKeyring.response,
);

/** Any replica holding the keyring: lets a freshly elected, still sealed leader take it over. */
export const peerKeyring = defineContract(
  'core.sys.peer.keyring',
  coreBarrierKeyring.request,
  coreBarrierKeyring.response,
);
