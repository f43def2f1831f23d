import { z } from 'zod';

/**
 * The bodies of the sys routes Vault answers without the envelope (kind "raw"): sys/init,
 * seal-status, unseal and health. Each is an allow-list like the `data` schemas: the transport
 * parses what a handler returns with it, so a field not declared here never leaves core-sys.
 * That matters most for sys/init, the one answer that carries the unseal keys and root token.
 */

/** GET sys/init. */
export const sysInitStatusRaw = z.object({ initialized: z.boolean() });

/** PUT sys/init: the key shares (hex and base64 of the same bytes) and the initial root token. */
export const sysInitRaw = z.object({
  keys: z.array(z.string()).describe('Unseal key shares, hex.'),
  keys_base64: z.array(z.string()).describe('The same shares, base64.'),
  root_token: z.string().describe('The initial root token.'),
});
export type SysInitRaw = z.input<typeof sysInitRaw>;

/** GET sys/seal-status and the answer of PUT sys/unseal (cluster identity only once unsealed). */
export const sysSealStatusRaw = z.object({
  type: z.string(),
  initialized: z.boolean(),
  sealed: z.boolean(),
  t: z.number().int().describe('Shares needed to unseal.'),
  n: z.number().int().describe('Shares the root key was split into.'),
  progress: z.number().int().describe('Shares entered so far in this unseal attempt.'),
  nonce: z.string().describe('Identifies the unseal attempt; empty when none is under way.'),
  version: z.string(),
  build_date: z.string(),
  migration: z.boolean(),
  recovery_seal: z.boolean(),
  storage_type: z.string(),
  cluster_name: z.string().optional(),
  cluster_id: z.string().optional(),
});
export type SysSealStatusRaw = z.input<typeof sysSealStatusRaw>;

/** GET/HEAD sys/health, whatever status code it answers (cluster identity only once unsealed). */
export const sysHealthStatusRaw = z.object({
  initialized: z.boolean(),
  sealed: z.boolean(),
  standby: z.boolean(),
  performance_standby: z.boolean(),
  replication_performance_mode: z.string(),
  replication_dr_mode: z.string(),
  server_time_utc: z.number().int().describe('Unix time, seconds.'),
  version: z.string(),
  enterprise: z.boolean(),
  echo_duration_ms: z.number(),
  clock_skew_ms: z.number(),
  replication_primary_canary_age_ms: z.number(),
  cluster_name: z.string().optional(),
  cluster_id: z.string().optional(),
});
export type SysHealthStatusRaw = z.input<typeof sysHealthStatusRaw>;

/** A query parameter sys/health cannot read: a bare 400 with no message, as Vault answers it. */
export const sysHealthRefusedRaw = z.object({ errors: z.array(z.string()) });

export const sysHealthRaw = z.union([sysHealthStatusRaw, sysHealthRefusedRaw]);
