import { z } from 'zod';

/**
 * Events of a kv v2 key stream (`kv/<mount uuid>/<path>`) and of a mount's engine config stream
 * (`kv-config/<mount uuid>`). The whole payload is encrypted by the barrier in the log; on top of
 * that, version data is encrypted under the version's own data key (`ciphertext`), whose erasure
 * on destroy, prune or metadata delete makes the data unrecoverable although the event stays.
 */
const versionList = z.array(z.number().int().positive());
const timestamp = z.string();

export const secretVersionWritten = {
  name: 'SecretVersionWritten',
  version: 1,
  schema: z.object({
    version: z.number().int().positive(),
    createdTime: timestamp,
    deletionTime: timestamp.nullable(),
    keyId: z.string(),
    /** base64 of AES-256-GCM(data key, JSON of the secret data) */
    ciphertext: z.string(),
  }),
} as const;

export const secretVersionsPruned = {
  name: 'SecretVersionsPruned',
  version: 1,
  schema: z.object({ versions: versionList, oldestVersion: z.number().int().nonnegative() }),
} as const;

export const secretVersionsDeleted = {
  name: 'SecretVersionsDeleted',
  version: 1,
  schema: z.object({ versions: versionList, deletionTime: timestamp }),
} as const;

export const secretVersionsUndeleted = {
  name: 'SecretVersionsUndeleted',
  version: 1,
  schema: z.object({ versions: versionList, deletionTime: timestamp.nullable() }),
} as const;

export const secretVersionsDestroyed = {
  name: 'SecretVersionsDestroyed',
  version: 1,
  schema: z.object({ versions: versionList }),
} as const;

export const secretMetadataWritten = {
  name: 'SecretMetadataWritten',
  version: 1,
  schema: z.object({
    maxVersions: z.number().int().nonnegative(),
    casRequired: z.boolean(),
    deleteVersionAfter: z.number().int().nonnegative(),
    customMetadata: z.record(z.string(), z.string()).nullable(),
    at: timestamp,
  }),
} as const;

export const secretMetadataDeleted = {
  name: 'SecretMetadataDeleted',
  version: 1,
  schema: z.object({ versions: z.array(z.number().int().positive()) }),
} as const;

export const kvConfigWritten = {
  name: 'KvConfigWritten',
  version: 1,
  schema: z.object({
    maxVersions: z.number().int().nonnegative(),
    casRequired: z.boolean(),
    deleteVersionAfter: z.number().int(),
  }),
} as const;

export type SecretVersionWritten = z.infer<typeof secretVersionWritten.schema>;
export type SecretVersionsPruned = z.infer<typeof secretVersionsPruned.schema>;
export type SecretVersionsDeleted = z.infer<typeof secretVersionsDeleted.schema>;
export type SecretVersionsUndeleted = z.infer<typeof secretVersionsUndeleted.schema>;
export type SecretVersionsDestroyed = z.infer<typeof secretVersionsDestroyed.schema>;
export type SecretMetadataWritten = z.infer<typeof secretMetadataWritten.schema>;
export type SecretMetadataDeleted = z.infer<typeof secretMetadataDeleted.schema>;
export type KvConfigWritten = z.infer<typeof kvConfigWritten.schema>;

export type Kv2Event =
  | { type: 'SecretVersionWritten'; data: SecretVersionWritten }
  | { type: 'SecretVersionsPruned'; data: SecretVersionsPruned }
  | { type: 'SecretVersionsDeleted'; data: SecretVersionsDeleted }
  | { type: 'SecretVersionsUndeleted'; data: SecretVersionsUndeleted }
  | { type: 'SecretVersionsDestroyed'; data: SecretVersionsDestroyed }
  | { type: 'SecretMetadataWritten'; data: SecretMetadataWritten }
  | { type: 'SecretMetadataDeleted'; data: SecretMetadataDeleted };

export const KV2_KEY_EVENT_TYPES = [
  secretVersionWritten,
  secretVersionsPruned,
  secretVersionsDeleted,
  secretVersionsUndeleted,
  secretVersionsDestroyed,
  secretMetadataWritten,
  secretMetadataDeleted,
] as const;
