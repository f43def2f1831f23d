import { z } from 'zod';

/**
 * Schemas shared by the kv v1, kv v2 and cubbyhole route tables. Query values arrive as strings;
 * the engine parses them so that its error texts match Vault's (e.g. a version that is not an
 * integer), which is why the query schemas below accept any string.
 */

/** Arbitrary JSON object: the content of a secret. */
export const secretDataSchema = z
  .record(z.string(), z.unknown())
  .describe('Arbitrary key/value pairs stored as the secret; values may be any JSON.');

/** A version number as sent in JSON: integer, or a string holding one (Vault decodes weakly). */
export const versionNumberInputSchema = z.union([z.number(), z.string()]);

/** `versions` of delete/undelete/destroy: a list of integers or a comma-separated string. */
export const versionListInputSchema = z
  .union([z.array(versionNumberInputSchema), z.string(), z.number()])
  .describe('Version numbers: a JSON array of integers or a comma-separated string.');

export const versionQuerySchema = z.object({
  version: z.string().optional().describe('Version to read; 0 or absent means the latest.'),
});

export const listResponseDataSchema = z.object({
  keys: z.array(z.string()).describe('Names under the folder; folders end with "/".'),
});

export const versionMetadataSchema = z.object({
  created_time: z.string(),
  custom_metadata: z.record(z.string(), z.string()).nullable(),
  deletion_time: z.string(),
  destroyed: z.boolean(),
  version: z.number().int(),
});
