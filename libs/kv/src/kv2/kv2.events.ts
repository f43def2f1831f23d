import { z } from 'zod';
import { stringMapSchema } from '@coffer/contracts';
import { defineAggregateLog, defineEvent, type EventOf } from '@coffer/event-store';
import { kvConfigStream, kvKeyStream } from '../shared/streams';

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
    customMetadata: stringMapSchema.nullable(),
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

export const KV2_EVENT_TYPES = {
  versionWritten: secretVersionWritten,
  versionsPruned: secretVersionsPruned,
  versionsDeleted: secretVersionsDeleted,
  versionsUndeleted: secretVersionsUndeleted,
  versionsDestroyed: secretVersionsDestroyed,
  metadataWritten: secretMetadataWritten,
  metadataDeleted: secretMetadataDeleted,
} as const;

export type Kv2Event = EventOf<typeof KV2_EVENT_TYPES>;

/** One append to a kv v2 key: the key, and what the projection needs beyond the events. */
export interface Kv2Append {
  mountUuid: string;
  path: string;
  /** true when the key had no read-model row before this append */
  created: boolean;
  /** barrier-wrapped data keys of versions written by these events, by key id */
  wrappedKeys: ReadonlyMap<string, Buffer>;
  /** ciphertext of written versions, by key id (Buffer form of the event's base64) */
  ciphertexts: ReadonlyMap<string, Buffer>;
  /** barrier-encrypts custom metadata for the read model */
  sealCustomMetadata: (map: Record<string, string> | null) => Buffer | null;
}

/** kv v2 keys, one stream per mount and path. */
export const KV2_LOG = defineAggregateLog({
  description: 'a kv v2 key event',
  events: KV2_EVENT_TYPES,
  stream: (a: Kv2Append) => kvKeyStream(a.mountUuid, a.path),
});

export const KV_CONFIG_EVENT_TYPES = { written: kvConfigWritten } as const;

/** A kv v2 mount's engine config write: the mount, and whether it has a config row yet. */
export interface KvConfigAppend {
  mountUuid: string;
  created: boolean;
}

/** A kv v2 mount's engine config, one stream per mount. */
export const KV_CONFIG_LOG = defineAggregateLog({
  description: 'a kv config event',
  events: KV_CONFIG_EVENT_TYPES,
  stream: (a: KvConfigAppend) => kvConfigStream(a.mountUuid),
});
