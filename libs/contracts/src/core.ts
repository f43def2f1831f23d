import { z } from 'zod';
import { defineBroadcast, defineContract } from './contract';
import { mountInfoSchema } from './engine-messages';
import { stringMapSchema } from './fields/json-object';

/**
 * Internal contracts served by core-sys for the gateway and the engine services. These are not
 * HTTP routes; the sys/auth/identity HTTP routes are route tables (core-sys/*.routes.ts).
 */

/** Seal state: the gateway caches it and refreshes on the seal-changed broadcast. */
export const sealStateSchema = z.object({ initialized: z.boolean(), sealed: z.boolean() });
export const coreSealState = defineContract('core.seal.state', z.object({}), sealStateSchema);

/**
 * Mount table for routing (longest prefix). Includes the system mounts: "sys/" (type system),
 * "auth/token/" (type token), "identity/" (type identity), "cubbyhole/"; auth methods appear with
 * their "auth/" prefix (e.g. "auth/userpass/" type userpass). kv mounts carry options.version.
 */
export const mountEntrySchema = mountInfoSchema.extend({
  description: z.string().default(''),
  /** "secret" for secrets engines, "auth" for auth methods, "system" for built-ins */
  table: z.enum(['secret', 'auth', 'system']),
  local: z.boolean().default(false),
  seal_wrap: z.boolean().default(false),
  /** the mount's audit_non_hmac_* keys (audit devices leave their values clear) */
  audit_non_hmac_request_keys: z.array(z.string()).optional(),
  audit_non_hmac_response_keys: z.array(z.string()).optional(),
  /** being unmounted (Vault's Tainted): the gateway refuses requests to it */
  tainted: z.boolean().optional(),
});
export type MountEntry = z.infer<typeof mountEntrySchema>;
export const coreMountTable = defineContract(
  'core.mounts.table',
  z.object({}),
  z.object({ mounts: z.array(mountEntrySchema), revision: z.number().int() }),
);

/**
 * Resolves a client token for the gateway. Tokens with num_uses are decremented here (one use per
 * request), so the gateway only caches tokens whose `cacheable` is true. Unknown, expired or
 * revoked tokens fail with code invalid_token.
 */
export const resolvedTokenSchema = z.object({
  accessor: z.string(),
  /** HMAC of the token id: stable per token, safe to use as a storage key (cubbyhole) */
  tokenRef: z.string(),
  policies: z.array(z.string()),
  /** policies inherited from the token's entity (and groups) */
  identityPolicies: z.array(z.string()),
  /**
   * policies of the entity's groups in namespaces above the token's, by namespace path
   * ("ns1/"): policies of that namespace, their paths relative to it (Vault's
   * external_namespace_policies). Absent when there are none.
   */
  externalPolicies: z.record(z.string(), z.array(z.string())).optional(),
  entityId: z.string(),
  displayName: z.string(),
  /** unix ms; 0 = never (root) */
  expiresAt: z.number(),
  cacheable: z.boolean(),
  /** token_bound_cidrs: the addresses it may be used from (absent or empty = anywhere) */
  boundCidrs: z.array(z.string()).optional(),
  /** the namespace the token belongs to ("" root, "ns1/ns2/"): valid there and below */
  namespace: z.string().optional(),
});
export type ResolvedToken = z.infer<typeof resolvedTokenSchema>;
export const coreTokenResolve = defineContract(
  'core.token.resolve',
  z.object({ token: z.string().min(1) }),
  resolvedTokenSchema,
);

/** Entity facts for ACL path templating ({{identity.entity.id}} ...). */
export const entityFactsSchema = z.object({
  id: z.string(),
  name: z.string(),
  metadata: stringMapSchema,
  aliases: z.array(z.object({ mount_accessor: z.string(), name: z.string() })),
  groups: z.array(z.object({ id: z.string(), name: z.string() })),
});
export type EntityFacts = z.infer<typeof entityFactsSchema>;
export const coreEntityFacts = defineContract(
  'core.identity.facts',
  z.object({ entityId: z.string() }),
  entityFactsSchema.nullable(),
);

/** Policy texts by name (the gateway parses and caches them; missing names are simply absent). */
export const corePolicyTexts = defineContract(
  'core.policy.texts',
  z.object({ names: z.array(z.string()) }),
  z.object({ policies: z.array(z.object({ name: z.string(), text: z.string() })) }),
);

/**
 * The barrier keyring for engine services, once unsealed. The requester proves it belongs to the
 * cluster (HMAC over its ephemeral X25519 public key with the cluster secret) and gets the keyring
 * sealed to that public key; it never crosses the transport in clear. Fails with code "sealed".
 */
export const coreBarrierKeyring = defineContract(
  'core.barrier.keyring',
  z.object({
    service: z.string(),
    publicKey: z.string(), // base64 raw X25519 public key
    nonce: z.string(),
    mac: z.string(), // base64 HMAC-SHA256(cluster secret, service|publicKey|nonce)
  }),
  z.object({
    ephemeralPublicKey: z.string(),
    sealed: z.string(), // base64 AES-256-GCM(keyring) under HKDF(ECDH)
  }),
);

/** Cache invalidation, published by core-sys after commit and before replying to the writer. */
export const invalidation = defineBroadcast(
  'events.invalidate',
  z.object({
    kind: z.enum(['policy', 'token', 'mounts', 'entity', 'seal', 'audit']),
    /** affected keys: policy names, token accessors, entity ids; empty = everything of that kind */
    keys: z.array(z.string()).default([]),
  }),
);
export type Invalidation = z.infer<typeof invalidation.payload>;

/** Token lifecycle broadcast, consumed by engines that keep per-token state (cubbyhole). */
export const tokenRevoked = defineBroadcast(
  'events.token.revoked',
  z.object({ accessors: z.array(z.string()), tokenRefs: z.array(z.string()) }),
);

/**
 * Which of these token refs still belong to live tokens. Engines with per-token state (cubbyhole)
 * sweep with it periodically, so a missed tokenRevoked broadcast never leaves data behind.
 */
export const coreTokenAlive = defineContract(
  'core.token.alive',
  z.object({ tokenRefs: z.array(z.string()) }),
  z.object({ alive: z.array(z.string()) }),
);

/** A secrets-engine mount was disabled: its service purges (crypto-shreds) the mount's data. */
export const mountDisabled = defineBroadcast(
  'events.mount.disabled',
  z.object({
    uuid: z.string(),
    type: z.string(),
    path: z.string(),
    /**
     * On a performance secondary: its primary disabled the mount (core-sys replayed it). What the
     * secondary holds of the mount goes too, but a service whose log is the primary's stream (kv)
     * leaves it to the primary's purge events, which follow in that stream.
     */
    replicated: z.boolean().optional(),
  }),
);
