import { z } from 'zod';
import { jsonObjectSchema, stringMapSchema } from '../fields/json-object';
import { addVaultIssue } from '../fields/request-errors';

/**
 * Schemas shared by the kv v1, kv v2 and cubbyhole contracts, with the texts of Vault's kv plugin.
 * Values are echoed in errors only for settings fields, never for secret data.
 */

/** Arbitrary JSON object: the content of a secret (passed through as received, "__proto__" included). */
export const secretDataSchema = jsonObjectSchema.describe(
  'Arbitrary key/value pairs stored as the secret; values may be any JSON.',
);

/** The body of a kv v1 / cubbyhole write: the whole body is the secret, and it may not be empty. */
export const flatWriteBodySchema = secretDataSchema.superRefine((data, ctx) => {
  if (Object.keys(data).length === 0) addVaultIssue(ctx, data, 'missing data fields');
});

export const listResponseDataSchema = z.object({
  keys: z.array(z.string()).describe('Names under the folder; folders end with "/".'),
});

/** custom_metadata as answered: the caller's keys, kept as own properties. */
export const customMetadataOutSchema = stringMapSchema.nullable();

export const versionMetadataSchema = z.object({
  created_time: z.string(),
  custom_metadata: customMetadataOutSchema,
  deletion_time: z.string(),
  destroyed: z.boolean(),
  version: z.number().int(),
});

/** Secret paths are route captures: `data/:path*` and friends. */
export const pathParamsSchema = z.object({ path: z.string() });
