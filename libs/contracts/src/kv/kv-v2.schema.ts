import { z } from 'zod';
import { getOwn, jsonObjectSchema } from '../fields/json-object';
import { multiError } from '../fields/multi-error';
import { addVaultIssue } from '../fields/request-errors';
import {
  weakBool,
  weakDuration,
  weakInt,
  weakIntList,
  weakMap,
  weakStringMap,
  weakStringMapPatch,
} from '../fields/weak-fields';
import { customMetadataOutSchema, secretDataSchema, versionMetadataSchema } from './common';

/**
 * Request and response schemas of kv v2, with the texts of Vault's kv plugin (paths_config.go,
 * paths_data.go, paths_metadata.go). Values are echoed in errors only for settings fields.
 */

/** A non-negative setting that Vault stores as uint32. */
const uint32Setting = (description: string) =>
  weakInt()
    .superRefine((n, ctx) => {
      if (n === undefined) return;
      if (n < 0) addVaultIssue(ctx, n, (field) => `${field} cannot be negative`);
      else if (n > 0xffffffff) addVaultIssue(ctx, n, (field) => `${field} is too large`);
    })
    .describe(description);

/** `version` query of data and subkeys reads: 0, negative or absent mean the latest version. */
const versionQueryField = weakInt({ default: 0 })
  .transform((n) => Math.max(0, n))
  .describe('Version to read; 0 or absent means the latest.');

export const versionQuerySchema = z.object({ version: versionQueryField });

export const subkeysQuerySchema = z.object({
  version: versionQueryField,
  depth: weakInt({ default: 0 })
    .superRefine((n, ctx) => {
      if (n < 0) addVaultIssue(ctx, n, 'depth must be a non-negative integer');
    })
    .describe('Deepest level shown; 0 means no limit.'),
});

export const kvV2ConfigBodySchema = z.object({
  max_versions: uint32Setting('Versions kept per key; 0 means 10.'),
  cas_required: weakBool().describe('Every write must carry options.cas.'),
  delete_version_after: weakDuration()
    // A negative value disables it for every key (stored as -1s).
    .transform((seconds) => (seconds !== undefined && seconds < 0 ? -1 : seconds))
    .describe('Soft-delete versions this long after they are written; 0 clears, negative disables.'),
});

const CAS_ERROR = 'error parsing check-and-set parameter';

/** options.cas of a kv v2 write: any weakly-int value; Vault's own text when it is not one. */
function casOf(options: Record<string, unknown> | undefined, ctx: z.RefinementCtx): number | undefined {
  const value = options === undefined ? undefined : getOwn(options, 'cas');
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number' && Number.isFinite(value)) return Math.trunc(value);
  if (typeof value === 'string' && /^[+-]?\d+$/.test(value.trim())) return Number(value.trim());
  if (typeof value === 'string' && value.trim() === '') return 0;
  addVaultIssue(ctx, value, CAS_ERROR);
  return z.NEVER;
}

export const kvV2DataBodySchema = z.object({
  data: weakMap()
    .transform((data, ctx) => {
      if (data !== undefined) return data;
      addVaultIssue(ctx, data, 'no data provided');
      return z.NEVER;
    })
    .describe('The secret: arbitrary key/value pairs; in a PATCH, a JSON merge patch of it.'),
  options: weakMap()
    .transform((options, ctx) => ({ cas: casOf(options, ctx) }))
    .describe(
      'options.cas, check-and-set: the write succeeds only if it equals the current version (0: key must not exist).',
    ),
});

export const kvV2VersionsBodySchema = z.object({
  versions: weakIntList({ default: [] }).describe(
    'Version numbers: a JSON array of integers or a comma-separated string.',
  ),
});

const MAX_CUSTOM_KEYS = 64;
const MAX_CUSTOM_KEY_BYTES = 128;
const MAX_CUSTOM_VALUE_BYTES = 512;
const PREFIX = 'custom_metadata validation failed';
// Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space.
const UNPRINTABLE = /[\p{C}\p{Zl}\p{Zp}\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000]/u;

/** Vault's validateCustomMetadata: every problem at once, as a multierror. */
export function customMetadataErrors(map: Record<string, string | null>): string | undefined {
  const keys = Object.keys(map).filter((key) => map[key] !== null);
  if (keys.length > MAX_CUSTOM_KEYS) {
    return multiError(
      `${PREFIX}: payload must contain at most ${MAX_CUSTOM_KEYS} keys, provided ${keys.length}`,
    );
  }
  const errors: string[] = [];
  for (const key of keys) {
    const value = map[key] ?? '';
    const keyLen = Buffer.byteLength(key);
    const valueLen = Buffer.byteLength(value);
    const k = JSON.stringify(key);
    if (keyLen === 0 || keyLen > MAX_CUSTOM_KEY_BYTES) {
      errors.push(
        `${PREFIX}: length of key ${k} is ${keyLen} but must be 0 < len(key) <= ${MAX_CUSTOM_KEY_BYTES}`,
      );
    }
    if (valueLen === 0 || valueLen > MAX_CUSTOM_VALUE_BYTES) {
      errors.push(
        `${PREFIX}: length of value for key ${k} is ${valueLen} but must be 0 < len(value) <= ${MAX_CUSTOM_VALUE_BYTES}`,
      );
    }
    if (UNPRINTABLE.test(key)) errors.push(`${PREFIX}: key ${k} (${key}) contains unprintable characters`);
    if (UNPRINTABLE.test(value)) errors.push(`${PREFIX}: value for key ${k} contains unprintable characters`);
  }
  return errors.length > 0 ? multiError(...errors) : undefined;
}

const checkCustomMetadata = (map: Record<string, string | null> | undefined, ctx: z.RefinementCtx): void => {
  const text = map === undefined ? undefined : customMetadataErrors(map);
  if (text !== undefined) addVaultIssue(ctx, map, text);
};

const customMetadataOptions = {
  valueMessage: ({ key }: { key: string }) =>
    `${PREFIX}: value for key ${JSON.stringify(key)} must be a string`,
};

const metadataSettings = {
  max_versions: uint32Setting('Versions kept for this key; 0 means the engine setting.'),
  cas_required: weakBool(),
  delete_version_after: weakDuration()
    .superRefine((seconds, ctx) => {
      if (seconds !== undefined && seconds < 0) {
        addVaultIssue(ctx, seconds, 'delete_version_after cannot be negative');
      }
    })
    .describe('Capped by the engine setting.'),
};

/** POST metadata/:path: custom_metadata, when given, replaces the whole map. */
export const kvV2MetadataBodySchema = z.object({
  ...metadataSettings,
  custom_metadata: weakStringMap(customMetadataOptions)
    .superRefine(checkCustomMetadata)
    .describe('Up to 64 string pairs.'),
});

/** PATCH metadata/:path: custom_metadata is a merge patch of the map (null removes a key). */
export const kvV2MetadataPatchBodySchema = z.object({
  ...metadataSettings,
  custom_metadata: weakStringMapPatch(customMetadataOptions)
    .superRefine(checkCustomMetadata)
    .describe('A merge patch of the string pairs: null removes a key.'),
});

export const kvV2ConfigDataSchema = z.object({
  cas_required: z.boolean(),
  delete_version_after: z.string(),
  max_versions: z.number().int(),
});

export const kvV2ReadDataSchema = z.object({
  data: secretDataSchema.nullable(),
  metadata: versionMetadataSchema,
});

export const kvV2SubkeysDataSchema = z.object({
  subkeys: jsonObjectSchema.nullable(),
  metadata: versionMetadataSchema,
});

export const kvV2MetadataDataSchema = z.object({
  cas_required: z.boolean(),
  created_time: z.string(),
  current_version: z.number().int(),
  custom_metadata: customMetadataOutSchema,
  delete_version_after: z.string(),
  max_versions: z.number().int(),
  oldest_version: z.number().int(),
  updated_time: z.string(),
  versions: z.record(
    z.string(),
    z.object({ created_time: z.string(), deletion_time: z.string(), destroyed: z.boolean() }),
  ),
});
