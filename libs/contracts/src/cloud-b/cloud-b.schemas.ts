import { z } from 'zod';
import { isJsonObject, setOwn, stringMapSchema } from '../fields/json-object';
import { addVaultIssue, type IssueSink } from '../fields/request-errors';
import { weakDuration, weakInt, weakString, weakStringList } from '../fields/weak-fields';

/**
 * Request and response schemas of the cloud-b engine (Vault's AWS secrets engine, builtin/logical/aws).
 * Role fields are optional on purpose: a role write changes what it sends and keeps the rest.
 */

export const CLOUD_B_CREDENTIAL_TYPES = ['iam_user', 'assumed_role', 'federation_token'] as const;
export type CloudBCredentialType = (typeof CLOUD_B_CREDENTIAL_TYPES)[number];

/** Vault's default STS TTL (and the `ttl` field's default on creds/sts). */
export const CLOUD_B_DEFAULT_STS_TTL = 3600;

export const cloudBNameParams = z.object({ name: z.string() });

export const cloudBRootConfigBodySchema = z.object({
  access_key: weakString({ description: 'Access key ID of the IAM user the engine acts as.' }),
  secret_key: weakString({ description: 'Its secret access key (never read back).' }),
  region: weakString({
    description: 'Region; default CLOUDB_REGION, then CLOUDB_DEFAULT_REGION, then us-east-1.',
  }),
  iam_endpoint: weakString({ description: 'IAM endpoint URL (default: the SDK default).' }),
  sts_endpoint: weakString({ description: 'STS endpoint URL (default: the SDK default).' }),
  max_retries: weakInt({ default: -1, description: 'Retries of failed calls; -1: the SDK default.' }),
  request_timeout: weakDuration({
    default: 4,
    description:
      'Beyond Vault: seconds the calls of one request to IAM / STS may take (default 4); twice it ' +
      '(the calls, then the cleanup of a failure) must stay below the gateway engine timeout.',
  }),
});

export const cloudBRootConfigReadSchema = z.object({
  access_key: z.string(),
  region: z.string(),
  iam_endpoint: z.string(),
  sts_endpoint: z.string(),
  max_retries: z.number().int(),
  request_timeout: z.number().int(),
});

export const cloudBLeaseBodySchema = z.object({
  lease: weakString({ default: '', description: 'Default TTL of IAM user credentials (Go duration).' }),
  lease_max: weakString({ default: '', description: 'Maximum TTL of IAM user credentials (Go duration).' }),
});
export const cloudBLeaseReadSchema = z.object({ lease: z.string(), lease_max: z.string() });

export const cloudBRotateRootSchema = z.object({ access_key: z.string() });

/**
 * TypeKVPairs: a map, or a list (or comma string) of "key=value" strings. A list entry without
 * "=" fails with Vault's text.
 */
function weakKeyValuePairs() {
  return z
    .unknown()
    .optional()
    .meta({ description: 'A map, or a list of "key=value" strings.' })
    .transform((value: unknown, ctx: IssueSink): Record<string, string> | undefined => {
      if (value === undefined || value === null) return undefined;
      const out: Record<string, string> = {};
      if (isJsonObject(value)) {
        for (const [k, v] of Object.entries(value)) {
          if (typeof v === 'object' && v !== null) {
            addVaultIssue(
              ctx,
              value,
              (field) => `Field validation failed: error converting input for field "${field}"`,
            );
            return z.NEVER;
          }
          setOwn(out, k, typeof v === 'string' ? v : v === null ? '' : JSON.stringify(v));
        }
        return out;
      }
      const items =
        typeof value === 'string'
          ? value
              .split(',')
              .map((s) => s.trim())
              .filter((s) => s !== '')
          : Array.isArray(value)
            ? value.map((v) => String(v))
            : undefined;
      if (!items) {
        addVaultIssue(
          ctx,
          value,
          (field) => `Field validation failed: error converting input for field "${field}"`,
        );
        return z.NEVER;
      }
      for (const item of items) {
        const at = item.indexOf('=');
        if (at < 0) {
          addVaultIssue(ctx, value, `invalid key value pair "${item}"`);
          return z.NEVER;
        }
        setOwn(out, item.slice(0, at), item.slice(at + 1));
      }
      return out;
    });
}

export const cloudBRoleBodySchema = z.object({
  credential_type: weakString({ description: 'iam_user, assumed_role or federation_token.' }),
  role_arns: weakStringList({ description: 'Role ARNs an assumed_role credential may assume.' }),
  policy_arns: weakStringList({ description: 'Managed policy ARNs.' }),
  policy_document: weakString({ description: 'An IAM policy document (JSON).' }),
  iam_groups: weakStringList({ description: 'IAM groups (iam_user: memberships; STS: their policies).' }),
  iam_tags: weakKeyValuePairs(),
  default_sts_ttl: weakDuration({ description: 'Default TTL of STS credentials.' }),
  max_sts_ttl: weakDuration({ description: 'Maximum TTL of STS credentials.' }),
  user_path: weakString({ description: 'Path of created IAM users (default "/").' }),
  permissions_boundary_arn: weakString({ description: 'Permissions boundary of created IAM users.' }),
  policy: weakString({ description: 'Deprecated: a policy document or a policy ARN.' }),
  arn: weakString({ description: 'Deprecated: a role or policy ARN.' }),
});

export const cloudBRoleReadSchema = z.object({
  credential_type: z.string(),
  credential_types: z.array(z.string()),
  policy_arns: z.array(z.string()).nullable(),
  role_arns: z.array(z.string()).nullable(),
  policy_document: z.string(),
  iam_groups: z.array(z.string()).nullable(),
  iam_tags: stringMapSchema.nullable(),
  default_sts_ttl: z.number().int(),
  max_sts_ttl: z.number().int(),
  user_path: z.string(),
  permissions_boundary_arn: z.string(),
  invalid_data: z.string().optional(),
});

export const cloudBListSchema = z.object({ keys: z.array(z.string()) });

/** creds/:name and sts/:name, in the query (GET) or the body (POST). */
export const cloudBCredsFieldsSchema = z.object({
  role_arn: weakString({ description: 'The role ARN to assume (required when the role allows several).' }),
  role_session_name: weakString({ description: 'Session name (truncated to 64 characters).' }),
  ttl: weakDuration({
    description: 'STS credentials lifetime (default: the role default_sts_ttl, then 3600s).',
  }),
});

export const cloudBCredsSchema = z.object({
  access_key: z.string(),
  secret_key: z.string(),
  security_token: z.string().nullable(),
  session_token: z.string().nullable(),
  arn: z.string(),
  ttl: z.number().int().optional(),
});
