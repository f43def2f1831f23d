import { z } from 'zod';
import { jsonObjectSchema, stringMapSchema } from './fields/json-object';

/**
 * The logical request/response model between the gateway and every engine service (Vault's
 * "logical" layer). The gateway normalises the HTTP request, finds the mount (longest prefix),
 * matches the route in the engine's route table (routes.ts), checks the ACL, then sends an
 * EngineRequest to the matched operation's contract subject. The engine answers an
 * EngineResponse which the gateway wraps in the envelope.
 */
export const OPERATIONS = ['read', 'create', 'update', 'patch', 'delete', 'list'] as const;
export const operationSchema = z.enum(OPERATIONS);
export type Operation = z.infer<typeof operationSchema>;

export const mountInfoSchema = z.object({
  /** mount path with trailing slash, relative to its namespace: "secret/" */
  path: z.string(),
  /** stable id of the mount: storage and streams are keyed by it, so a remount keeps data */
  uuid: z.string(),
  accessor: z.string(),
  type: z.string(),
  /** namespace path, "" for root */
  namespace: z.string().default(''),
  options: stringMapSchema.default({}),
  config: z
    .object({
      default_lease_ttl: z.number().int().nonnegative().default(0),
      max_lease_ttl: z.number().int().nonnegative().default(0),
    })
    .default({ default_lease_ttl: 0, max_lease_ttl: 0 }),
});
export type MountInfo = z.infer<typeof mountInfoSchema>;

export const engineRequestSchema = z.object({
  operation: operationSchema,
  mount: mountInfoSchema,
  /** path relative to the mount, normalised (no "." / ".." / "//"), no leading slash */
  path: z.string(),
  /** named captures of the matched route pattern, e.g. { path: "foo/bar" } for "data/:path*" */
  params: z.record(z.string(), z.string()).default({}),
  /** parsed JSON body (POST/PUT/PATCH) or {}; a contract's own body schema replaces this one */
  body: jsonObjectSchema.default({}),
  /** query string values (GET/LIST/DELETE) */
  query: z.record(z.string(), z.string()).default({}),
  /** selected request headers a route declared it needs (lower-case names) */
  headers: z.record(z.string(), z.string()).default({}),
});
export type EngineRequest = z.infer<typeof engineRequestSchema>;

export const leaseSchema = z.object({
  lease_id: z.string().default(''),
  lease_duration: z.number().int().nonnegative().default(0),
  renewable: z.boolean().default(false),
});

/** What an engine answers to hand out something that must die on time (engine-messages `secret`). */
export const engineSecretSchema = z.object({
  /** seconds; 0 = the mount's default lease TTL */
  ttl: z.number().int().nonnegative().default(0),
  /** seconds; 0 = the mount's (or system's) max lease TTL */
  max_ttl: z.number().int().nonnegative().default(0),
  renewable: z.boolean().default(false),
  /** what the engine needs to renew or revoke it; kept behind the barrier, never returned */
  internal: jsonObjectSchema.default({}),
});
export type EngineSecret = z.output<typeof engineSecretSchema>;

export const authSchema = z.object({
  client_token: z.string(),
  accessor: z.string(),
  policies: z.array(z.string()),
  token_policies: z.array(z.string()),
  identity_policies: z.array(z.string()).optional(),
  metadata: stringMapSchema.nullable(),
  lease_duration: z.number().int(),
  renewable: z.boolean(),
  entity_id: z.string(),
  token_type: z.string(),
  orphan: z.boolean(),
  mfa_requirement: z.null().default(null),
  num_uses: z.number().int(),
});
export type AuthBlock = z.infer<typeof authSchema>;

/**
 * kind:
 *  - "envelope": wrapped in {request_id, lease_id, renewable, lease_duration, data, wrap_info, warnings, auth};
 *    204 when data, auth and warnings are all empty (unless status says otherwise).
 *  - "raw": `body` is sent as-is (sys/init, seal-status, health...), JSON unless contentType says otherwise.
 *  - "injected": envelope AND the data fields at top level (Vault's sys "injector": sys/mounts, capabilities...).
 */
export const engineResponseSchema = z.object({
  kind: z.enum(['envelope', 'raw', 'injected']).default('envelope'),
  status: z.number().int().optional(),
  /** a contract's own data schema replaces this one (and strips what it does not declare) */
  data: jsonObjectSchema.nullable().default(null),
  warnings: z.array(z.string()).default([]),
  lease: leaseSchema.optional(),
  /** a lease to register: the gateway has core-sys register it and fills `lease` (never sent to clients) */
  secret: engineSecretSchema.optional(),
  auth: authSchema.nullable().default(null),
  /** kind "raw" only */
  body: z.unknown().optional(),
  contentType: z.string().optional(),
  /** kind "raw" only: `base64` when the body string carries binary bytes (DER) to send as they are */
  bodyEncoding: z.enum(['utf8', 'base64']).optional(),
  /**
   * kind "raw" only: response headers, of the few the gateway lets an engine set
   * (Cache-Control, Pragma, WWW-Authenticate: OAuth's token and userinfo answers)
   */
  headers: z.record(z.string(), z.string()).optional(),
  /**
   * kind "raw" only: the body is an unwrapped response, so a request asking for wrapping gets it
   * wrapped again as it is (Vault's sys/wrapping/unwrap with a wrap TTL).
   */
  rewrappable: z.boolean().optional(),
});
export type EngineResponse = z.input<typeof engineResponseSchema>;

/** Existence check: engines answer whether the target of a write exists (create vs update ACL). */
export const existenceResponseSchema = z.object({ exists: z.boolean() });
