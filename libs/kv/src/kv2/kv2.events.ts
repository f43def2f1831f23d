import { z } from 'zod';
import { defineEvent } from '@coffer/event-store';

/**
 * Events of a kv v2 key stream (`kv/<mount uuid>/<path>`) and of a mount's engine config stream
 * (`kv-config/<mount uuid>`). The whole payload is encrypted by the barrier in the log; on top of
 * that, version data is encrypted under the version's own data key (`ciphertext`), whose erasure
 * on destroy, prune or metadata delete makes the data unrecoverable although the event stays.
 */
const versionList = z.array(z.number().int().positive());
const timestamp = z.string();

export const secretVersionWritten = defineEvent(
  'SecretVersionWritten',
  1,
  z.object({
    version: z.number().int().positive(),
    createdTime: timestamp,
    deletionTime: timestamp.nullable(),
    keyId: z.string(),
    /** base64 of AES-256-GCM(data key, JSON of the secret data) */
    ciphertext: z.string(),
  }),
);

export const secretVersionsPruned = defineEvent(
  'SecretVersionsPruned',
  1,
  z.object({ versions: versionList, oldestVersion: z.number().int().nonnegative() }),
);

export const secretVersionsDeleted = defineEvent(
  'SecretVersionsDeleted',
  1,
  z.object({ versions: versionList, deletionTime: timestamp }),
);

export const secretVersionsUndeleted = defineEvent(
  'SecretVersionsUndeleted',
  1,
  z.object({ versions: versionList, deletionTime: timestamp.nullable() }),
);

export const secretVersionsDestroyed = defineEvent(
  'SecretVersionsDestroyed',
  1,
  z.object({ versions: versionList }),
);

export const secretMetadataWritten = defineEvent(
  'SecretMetadataWritten',
  1,
  z.object({
    maxVersions: z.number().int().nonnegative(),
    casRequired: z.boolean(),
    deleteVersionAfter: z.number().int().nonnegative(),
    customMetadata: z.record(z.string(), z.string()).nullable(),
    at: timestamp,
  }),
);

export const secretMetadataDeleted = defineEvent(
  'SecretMetadataDeleted',
  1,
  z.object({ versions: z.array(z.number().int().positive()) }),
);

export const kvConfigWritten = defineEvent(
  'KvConfigWritten',
  1,
  z.object({
    maxVersions: z.number().int().nonnegative(),
    casRequired: z.boolean(),
    deleteVersionAfter: z.number().int(),
  }),
);

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
