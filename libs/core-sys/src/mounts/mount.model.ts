import { z } from 'zod';
import { stringMapSchema } from '@coffer/contracts';

/**
 * One entry of the mount table, as stored in events and the read model. `path` is the routing
 * path with its trailing slash: "secret/" for secrets engines, "auth/userpass/" for auth methods.
 */
export const mountConfigSchema = z.object({
  /** seconds; 0 = the system default */
  defaultLeaseTtl: z.number().int().nonnegative(),
  /** seconds; 0 = the system default */
  maxLeaseTtl: z.number().int().nonnegative(),
  forceNoCache: z.boolean(),
  /** "", "unauth" or "hidden" */
  listingVisibility: z.string(),
  /** auth methods only: "default-service", "default-batch", "service", "batch"; "" otherwise */
  tokenType: z.string(),
  /** audit devices leave the values under these keys of request / response data clear */
  auditNonHmacRequestKeys: z.array(z.string()).default([]),
  auditNonHmacResponseKeys: z.array(z.string()).default([]),
});
export type MountConfig = z.infer<typeof mountConfigSchema>;

export const MOUNT_TABLES = ['secret', 'auth', 'system'] as const;
export type MountTable = (typeof MOUNT_TABLES)[number];

export const mountRecordSchema = z.object({
  uuid: z.string(),
  path: z.string(),
  table: z.enum(MOUNT_TABLES),
  type: z.string(),
  description: z.string(),
  accessor: z.string(),
  options: stringMapSchema,
  config: mountConfigSchema,
  local: z.boolean(),
  sealWrap: z.boolean(),
  externalEntropyAccess: z.boolean(),
  /** being unmounted (Vault's Tainted): requests are refused until the unmount completes */
  tainted: z.boolean().optional(),
  /** the namespace it belongs to ("ns1/ns2/"), its path relative to it; absent = root */
  namespace: z.string().optional(),
});
export type MountRecord = z.infer<typeof mountRecordSchema>;

export const AUTH_PREFIX = 'auth/';

/** The namespace of a mount record ("" = root). */
export const namespaceOf = (m: Pick<MountRecord, 'namespace'>): string => m.namespace ?? '';

export const isAuthPath = (path: string): boolean => path.startsWith(AUTH_PREFIX);

/** Sources of fresh identifiers, injected so the decider stays pure. */
export interface MountIds {
  uuid(): string;
  /** 8 random hex characters */
  suffix(): string;
}
