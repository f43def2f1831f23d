import type { Subscription, Transport } from '@coffer/transport';

/**
 * Use cases whose state lives on the seal leader only (the rekey and generate-root attempts,
 * like the unseal progress): the coordinator has them serve their subjects on the leader queue
 * while this replica leads, and reset their state when it stops leading.
 */
export interface LeaderServed {
  serveOnLeader(transport: Transport, queue: string): Subscription[];
  /** forget the in-memory attempt (leadership lost) */
  reset(): void;
}
export const LEADER_SERVED = Symbol('LEADER_SERVED');
