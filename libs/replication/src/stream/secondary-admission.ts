import type { ModeState } from '../state/replication-state.decider';
import { frame, type UnstampedFrame } from './stream.wire';

/** `f` stamped with the mode's epoch (0 while this cluster has no state for the mode). */
export const stampedFrame = (state: ModeState | undefined, f: UnstampedFrame): string =>
  frame({ ...f, epoch: state?.epoch ?? 0 });

/**
 * Why a secondary may not use the cluster connection now (undefined: it may): checked at the
 * handshake, at the hello, on every forwarded write and on every supervisor pass (enforce).
 */
export function secondaryRefusal(
  state: ModeState | undefined,
  id: string,
  clusterId?: string,
): string | undefined {
  if (!state || state.state !== 'primary')
    return 'this cluster is no longer a primary of this replication set';
  if (state.revoked.includes(id)) return 'this secondary has been revoked';
  if (!state.secondaries.some((s) => s.id === id))
    return 'unknown secondary: it needs a new activation token';
  if (clusterId !== undefined && clusterId !== state.clusterId)
    return 'the replication set was re-created (new cluster id): the secondary needs a new activation token';
  return undefined;
}
