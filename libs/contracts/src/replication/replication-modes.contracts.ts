import { z } from 'zod';
import { defineBroadcast, defineContract } from '../contract';

/** What a cluster is in each replication set (status's `mode`). */
export const replicationModeSchema = z.enum(['disabled', 'primary', 'secondary']);
export const replicationModesSchema = z.object({
  dr: replicationModeSchema,
  performance: replicationModeSchema,
  /** performance secondary: the primary's API address, where writes are forwarded */
  performancePrimaryApiAddr: z.string(),
});
export type ReplicationModes = z.infer<typeof replicationModesSchema>;

/** The gateway's view of replication: a DR secondary answers only its routes and health (472). */
export const replicationModes = defineContract('replication.modes', z.object({}), replicationModesSchema);

/** Published after every replication state change, so gateways drop their cached modes. */
export const replicationModesChanged = defineBroadcast('replication.modes.changed', replicationModesSchema);
