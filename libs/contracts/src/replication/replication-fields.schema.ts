import { z } from 'zod';
import { weakBool, weakDuration, weakString, weakStringList } from '../fields/weak-fields';

/** The two replication sets a cluster can be part of, each with its own state. */
export const REPLICATION_MODES = ['dr', 'performance'] as const;
export type ReplicationMode = (typeof REPLICATION_MODES)[number];

/** Vault's activation token default lifetime (secondary-token `ttl`). */
export const DEFAULT_ACTIVATION_TTL_SECONDS = 30 * 60;

export const primaryEnableBody = z.object({ primary_cluster_addr: weakString({ default: '' }) }).prefault({});

export const secondaryTokenBody = z
  .object({
    id: weakString({ default: '' }),
    ttl: weakDuration({ default: DEFAULT_ACTIVATION_TTL_SECONDS }),
    secondary_public_key: weakString({ default: '' }),
  })
  .prefault({});

export const secondaryIdBody = z.object({ id: weakString({ default: '' }) }).prefault({});

export const secondaryEnableBody = z
  .object({
    token: weakString({ default: '' }),
    primary_api_addr: weakString({ default: '' }),
    ca_file: weakString({ default: '' }),
    ca_path: weakString({ default: '' }),
  })
  .prefault({});

export const updatePrimaryBody = secondaryEnableBody.unwrap().extend({
  dr_operation_token: weakString({ default: '' }),
});

export const promoteBody = z
  .object({
    dr_operation_token: weakString({ default: '' }),
    primary_cluster_addr: weakString({ default: '' }),
    force: weakBool({ default: false }),
  })
  .prefault({});

export const operationTokenDeleteBody = z
  .object({ dr_operation_token: weakString({ default: '' }) })
  .prefault({});

export const operationTokenAttemptBody = z.object({ pgp_key: weakString({ default: '' }) }).prefault({});

export const operationTokenUpdateBody = z
  .object({ key: weakString({ default: '' }), nonce: weakString({ default: '' }) })
  .prefault({});

export const pathsFilterBody = z
  .object({
    mode: weakString({ default: 'allow' }),
    paths: weakStringList({ default: [] }),
  })
  .prefault({});

export const mountFilterBody = z
  .object({
    mode: weakString({ default: 'whitelist' }),
    paths: weakStringList({ default: [] }),
  })
  .prefault({});

export const secondaryIdParams = z.object({ id: z.string() });

/** One connected (or known) secondary, as the primary's status lists it. */
export const secondaryStatusSchema = z.object({
  node_id: z.string(),
  api_address: z.string(),
  cluster_address: z.string(),
  connection_status: z.string(),
  last_heartbeat: z.string().nullable(),
  /** Coffer: the WAL total the secondary acknowledged (its last_remote_wal) */
  last_remote_wal: z.number().int().optional(),
});

export const primaryStatusSchema = z.object({
  api_address: z.string(),
  cluster_address: z.string(),
  connection_status: z.string(),
  last_heartbeat: z.string().nullable(),
});

/**
 * Replication status of one mode: `mode` is "disabled", "primary" or "secondary"; a primary
 * lists its secondaries, a secondary its primary. Fields that do not apply are left out.
 */
export const replicationStatusData = z.object({
  mode: z.string(),
  cluster_id: z.string().optional(),
  state: z.string().optional(),
  last_wal: z.number().int().optional(),
  last_remote_wal: z.number().int().optional(),
  merkle_root: z.string().optional(),
  known_secondaries: z.array(z.string()).optional(),
  secondaries: z.array(secondaryStatusSchema).optional(),
  primary_cluster_addr: z.string().optional(),
  known_primary_cluster_addrs: z.array(z.string()).optional(),
  primaries: z.array(primaryStatusSchema).optional(),
  secondary_id: z.string().optional(),
});
export type ReplicationStatus = z.infer<typeof replicationStatusData>;

/** generate-public-key: the secondary's X25519 public key (PEM) for secondary_public_key. */
export const publicKeyData = z.object({ secondary_public_key: z.string() });

export const operationTokenAttemptRaw = z.object({
  started: z.boolean(),
  nonce: z.string(),
  progress: z.number().int(),
  required: z.number().int(),
  encoded_token: z.string(),
  pgp_fingerprint: z.string(),
  otp: z.string().optional(),
  otp_length: z.number().int(),
  complete: z.boolean(),
});

export const promoteData = z.object({
  progress: z.number().int(),
  required: z.number().int(),
  complete: z.boolean(),
});

export const pathsFilterData = z.object({ mode: z.string(), paths: z.array(z.string()) });

export const dynamicFilterData = z.object({
  dynamic_filtered_mounts: z.array(z.string()),
  dynamic_filtered_namespaces: z.array(z.string()),
});

/** What an activation token unwraps to (the wrapped response's data). */
export const activationSchema = z.object({
  mode: z.enum(REPLICATION_MODES),
  cluster_id: z.string(),
  primary_cluster_addr: z.string(),
  secondary_id: z.string(),
  /** base64 32-byte pre-shared key of the TLS-PSK cluster connection */
  psk: z.string(),
});
export type Activation = z.infer<typeof activationSchema>;
