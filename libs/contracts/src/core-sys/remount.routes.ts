import { z } from 'zod';
import { weakString } from '../fields';
import { engineContract, type RouteDef } from '../routes';

/**
 * sys/remount (Vault's mount migration) and sys/ha-status. A remount answers at once with a
 * migration id; the move (leases revoked, then the mount table changed) runs in the background
 * and sys/remount/status/:migration_id reports it.
 */
export const sysRemountBody = z
  .object({
    from: weakString({
      default: '',
      description: 'The current mount point (may start with a child namespace).',
    }),
    to: weakString({ default: '', description: 'The new mount point (may start with a child namespace).' }),
  })
  .prefault({});
export type SysRemountBody = z.output<typeof sysRemountBody>;

export const MIGRATION_STATUSES = ['in-progress', 'success', 'failure'] as const;
export type MigrationStatus = (typeof MIGRATION_STATUSES)[number];

export const remountData = z.object({ migration_id: z.string() });
export const migrationInfoData = z.object({
  migration_id: z.string(),
  migration_info: z.object({
    /** namespace path + mount path, as given: "ns1/secret/" */
    source_mount: z.string(),
    target_mount: z.string(),
    status: z.enum(MIGRATION_STATUSES),
  }),
});
export type MigrationInfoData = z.infer<typeof migrationInfoData>;

const migrationParams = z.object({ migration_id: z.string().default('') }).prefault({});

/** One node of sys/ha-status: a core-sys process seen alive recently. */
export const haNodeData = z.object({
  hostname: z.string(),
  api_address: z.string(),
  cluster_address: z.string(),
  active_node: z.boolean(),
  /** RFC 3339 time of the node's last heartbeat; null for the active node (Vault's) */
  last_echo: z.string().nullable(),
  version: z.string(),
  upgrade_version: z.string(),
  redundancy_zone: z.string(),
});
export type HaNodeData = z.infer<typeof haNodeData>;
export const haStatusData = z.object({ nodes: z.array(haNodeData) });

export const remountContracts = {
  remount: engineContract('core.sys.mounts.remount', { body: sysRemountBody, data: remountData }),
  remountStatus: engineContract('core.sys.mounts.remount-status', {
    params: migrationParams,
    data: migrationInfoData,
  }),
  haStatus: engineContract('core.sys.ha-status.read', { data: haStatusData }),
} as const;

export const remountRouteDefs: RouteDef[] = [
  {
    pattern: 'remount',
    replicated: 'mount',
    invalidates: ['mounts'],
    synopsis: 'Move the mount point of an already-mounted backend.',
    description:
      'Moves a secrets engine or auth method (auth/x to auth/y) to a new path, also into another namespace. Its leases (or tokens) are revoked; its data and configuration move with it. Answers a migration id at once; requires sudo.',
    sudo: true,
    operations: { update: { contract: remountContracts.remount, summary: 'Moves a mount.' } },
  },
  {
    pattern: 'remount/status/:migration_id',
    synopsis: 'Check the status of a mount move operation.',
    description:
      'Returns the source and target mounts of a move and its status: in-progress, success or failure.',
    operations: {
      read: { contract: remountContracts.remountStatus, summary: 'Reads the status of a mount move.' },
    },
  },
  {
    pattern: 'ha-status',
    synopsis: 'Check the HA status of a Vault cluster.',
    description:
      'Lists the core-sys processes seen alive in the last heartbeats: the active node (the seal leader) first, then the standbys with their last echo.',
    operations: { read: { contract: remountContracts.haStatus, summary: 'Lists the HA nodes.' } },
  },
];
