import { z } from 'zod';
import { defineContract } from '../contract';
import { engineSecretSchema, mountInfoSchema } from '../engine-messages';
import { jsonObjectSchema, weakBool, weakDuration, weakString } from '../fields';
import { engineContract, type OperationDef, type RouteDef } from '../routes';
import { keysData, noData } from './core-sys-data.schema';

/**
 * sys/leases/* (Vault's logical_system.go lease handlers) and the lease contracts every engine
 * shares: core-sys registers what an engine answered with `secret`, and calls the engine's own
 * `<service>.lease.renew` / `<service>.lease.revoke` with the lease's internal data.
 */

const leaseIdBody = z
  .object({ lease_id: weakString({ default: '', description: 'The lease id.' }) })
  .prefault({});
const renewBody = z
  .object({
    lease_id: weakString({ default: '', description: 'The lease id.' }),
    increment: weakDuration({ default: 0, description: 'Requested TTL extension, in seconds.' }),
  })
  .prefault({});
const revokeBody = z
  .object({
    lease_id: weakString({ default: '', description: 'The lease id.' }),
    sync: weakBool({ default: true, description: 'Wait for the revocation (false: 202, queued).' }),
  })
  .prefault({});
const syncBody = z
  .object({ sync: weakBool({ default: true, description: 'Wait for the revocation.' }) })
  .prefault({});
const leaseIdParams = z.object({ lease_id: z.string().default('') }).prefault({});
const prefixParams = z.object({ prefix: z.string().default('') }).prefault({});
const countQuery = z
  .object({
    type: z.string().default(''),
    include_child_namespaces: weakBool({
      default: false,
      description: 'Also count or list the leases of child namespaces.',
    }),
    limit: z.string().default(''),
  })
  .prefault({});

/** sys/leases/lookup: times are RFC 3339, null when never set (Vault's zero time). */
export const leaseLookupData = z.object({
  id: z.string(),
  issue_time: z.string(),
  expire_time: z.string().nullable(),
  last_renewal: z.string().nullable(),
  renewable: z.boolean(),
  ttl: z.number().int(),
});
export const leaseCountData = z.object({
  lease_count: z.number().int(),
  counts: z.record(z.string(), z.number().int()),
});
/** Vault's leaseResponse: its expire time is unexported, so not in the answer. */
export const irrevocableLeaseData = z.object({
  lease_id: z.string(),
  mount_id: z.string(),
  error: z.string(),
  /**
   * Coffer's addition to Vault's leaseResponse (lease_id, mount_id, error): the path of the
   * namespace the lease lives in ("" root, "ns1/ns2/"). With include_child_namespaces the list
   * spans several namespaces, and the lease id's ".<nsid>" suffix alone does not name the path.
   */
  namespace: z.string(),
});
export const leaseListData = z.object({
  lease_count: z.number().int(),
  leases: z.array(irrevocableLeaseData),
});

export const leaseContracts = {
  lookup: engineContract('core.sys.leases.lookup', { body: leaseIdBody, data: leaseLookupData }),
  lookupList: engineContract('core.sys.leases.lookup-list', { params: prefixParams, data: keysData }),
  renew: engineContract('core.sys.leases.renew', { params: leaseIdParams, body: renewBody, data: noData }),
  revoke: engineContract('core.sys.leases.revoke', { params: leaseIdParams, body: revokeBody, data: noData }),
  revokePrefix: engineContract('core.sys.leases.revoke-prefix', {
    params: prefixParams,
    body: syncBody,
    data: noData,
  }),
  revokeForce: engineContract('core.sys.leases.revoke-force', { params: prefixParams, data: noData }),
  tidy: engineContract('core.sys.leases.tidy', { data: noData }),
  count: engineContract('core.sys.leases.count', { query: countQuery, data: leaseCountData }),
  list: engineContract('core.sys.leases.list', { query: countQuery, data: leaseListData }),
} as const;

/** Internal: the gateway registers a lease for an engine's answer, in the same request. */
export const coreLeaseRegister = defineContract(
  'core.sys.leases.register',
  z.object({
    /** full request path, mount included ("aws/creds/deploy"): the lease id's prefix */
    path: z.string(),
    mount: mountInfoSchema,
    /** the service serving the mount type: its lease subjects are `<service>.lease.*` */
    service: z.string(),
    secret: engineSecretSchema,
  }),
  z.object({ lease_id: z.string(), lease_duration: z.number().int(), renewable: z.boolean() }),
);

const engineLeaseRequest = z.object({
  lease_id: z.string(),
  mount: mountInfoSchema,
  internal: jsonObjectSchema,
  /** renew only: the requested increment in seconds (0 = the engine's own TTL) */
  increment: z.number().int().default(0),
  issue_time: z.string(),
});

/**
 * The lease calls every engine that issues leases serves, on its own subjects. Renew answers
 * the TTL the engine grants (0 = keep the lease's TTL) and may refuse with a DomainError;
 * revoke must be idempotent (core-sys retries it until it succeeds or gives up).
 */
export function engineLeaseContracts(service: string) {
  return {
    renew: defineContract(
      `${service}.lease.renew`,
      engineLeaseRequest,
      z.object({
        ttl: z.number().int().nonnegative().default(0),
        max_ttl: z.number().int().nonnegative().default(0),
      }),
    ),
    revoke: defineContract(`${service}.lease.revoke`, engineLeaseRequest, z.object({})),
  };
}

const op = (contract: OperationDef['contract'], summary: string): OperationDef => ({ contract, summary });
const l = leaseContracts;

/** The lease routes of the `sys/` table (Vault's paths, and the legacy sys/renew, sys/revoke*). */
export const leaseRouteDefs: RouteDef[] = [
  {
    pattern: 'leases/lookup',
    synopsis: 'View or list lease metadata.',
    description: 'PUT looks a lease up by lease_id; LIST (sudo) lists the top-level lease id prefixes.',
    sudo: { list: true },
    operations: { update: op(l.lookup, 'Looks up a lease.'), list: op(l.lookupList, 'Lists lease ids.') },
  },
  {
    pattern: 'leases/lookup/:prefix*',
    synopsis: 'View or list lease metadata.',
    description: 'Lists the lease ids (and sub-prefixes, ending in /) under the prefix. Requires sudo.',
    sudo: true,
    operations: { list: op(l.lookupList, 'Lists lease ids under a prefix.') },
  },
  ...['leases/renew', 'renew'].flatMap((base) => [
    {
      pattern: base,
      synopsis: 'Renews a lease, requesting to extend the lease.',
      description: 'Extends the lease by increment seconds, never past its max TTL or the mount’s.',
      operations: { update: op(l.renew, 'Renews a lease.') },
    },
    {
      pattern: `${base}/:lease_id*`,
      synopsis: 'Renews a lease, requesting to extend the lease.',
      operations: { update: op(l.renew, 'Renews a lease.') },
    },
  ]),
  ...['leases/revoke', 'revoke'].flatMap((base) => [
    {
      pattern: base,
      synopsis: 'Revokes a lease immediately.',
      description: 'sync=false queues the revocation (202).',
      operations: { update: op(l.revoke, 'Revokes a lease.') },
    },
    {
      pattern: `${base}/:lease_id*`,
      synopsis: 'Revokes a lease immediately.',
      operations: { update: op(l.revoke, 'Revokes a lease.') },
    },
  ]),
  ...['leases/revoke-prefix', 'revoke-prefix'].map((base) => ({
    pattern: `${base}/:prefix*`,
    synopsis: 'Revokes all secrets (via a lease ID prefix) or tokens (via the tokens’ path property).',
    description: 'Requires sudo.',
    sudo: true,
    operations: { update: op(l.revokePrefix, 'Revokes leases by prefix.') },
  })),
  ...['leases/revoke-force', 'revoke-force'].map((base) => ({
    pattern: `${base}/:prefix*`,
    synopsis: 'Revokes all secrets or tokens generated under a given prefix immediately',
    description: 'Ignores engine errors: the leases are removed even if the engine refuses. Requires sudo.',
    sudo: true,
    operations: { update: op(l.revokeForce, 'Force-revokes leases by prefix.') },
  })),
  {
    pattern: 'leases/tidy',
    synopsis:
      'This endpoint performs cleanup tasks that can be run if certain error conditions have occurred.',
    operations: { update: op(l.tidy, 'Tidies the lease index.') },
  },
  {
    pattern: 'leases/count',
    synopsis: 'Count of leases associated with this Vault cluster',
    description: 'type=irrevocable counts the leases that could not be revoked, by mount accessor.',
    operations: { read: op(l.count, 'Counts irrevocable leases.') },
  },
  {
    pattern: 'leases',
    synopsis: 'List leases associated with this Vault cluster',
    description: 'type=irrevocable lists the leases that could not be revoked.',
    operations: { read: op(l.list, 'Lists irrevocable leases.') },
  },
];

/**
 * Internal: which of an engine's credentials have a lease. An engine that made something in an
 * outside system before the gateway registered its lease asks, once the registration can no longer
 * be on its way, and undoes what has none (a kill -9 or a time-out between the two). `field` names
 * the key of the lease's internal data that identifies the credential; leases issued before
 * `since` (ms since the epoch) are not looked at.
 */
export const coreLeasesHeld = defineContract(
  'core.sys.leases.held',
  z.object({
    mount_uuid: z.string().min(1),
    field: z.string().min(1),
    values: z.array(z.string()).max(1000),
    since: z.number().int().nonnegative(),
  }),
  z.object({ held: z.array(z.string()) }),
);
