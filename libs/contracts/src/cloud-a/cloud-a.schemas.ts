import { z } from 'zod';
import { weakDuration, weakString } from '../fields/weak-fields';

/**
 * Request and response schemas of the cloud-a engine (Vault's Azure secrets engine,
 * vault-plugin-secrets-azure, with the role fields renamed cloud_a_roles / cloud_a_groups).
 */

/** Vault's environment names (go-autorest), matched case-insensitively. */
export const CLOUD_A_ENVIRONMENTS = [
  'AzurePublicCloud',
  'AzureUSGovernmentCloud',
  'AzureChinaCloud',
] as const;

export const cloudANameParams = z.object({ name: z.string() });

/** Every field is optional: a write changes what it sends and keeps the rest (Vault's config update). */
export const cloudAConfigBodySchema = z.object({
  subscription_id: weakString({
    description: 'The subscription id (required unless CLOUDA_SUBSCRIPTION_ID is set).',
  }),
  tenant_id: weakString({ description: 'The tenant id (required unless CLOUDA_TENANT_ID is set).' }),
  client_id: weakString({ description: 'Client id of the service principal the engine acts as.' }),
  client_secret: weakString({ description: 'Its client secret (never read back).' }),
  environment: weakString({
    description: 'AzurePublicCloud (default), AzureUSGovernmentCloud or AzureChinaCloud.',
  }),
  password_policy: weakString({ description: 'Name of a password policy (default: Azure generates it).' }),
  authority_host: weakString({
    description: 'Token authority, e.g. https://login.example.stack (instance discovery is then off).',
  }),
  graph_endpoint: weakString({ description: 'Microsoft Graph base URL overriding the environment’s.' }),
  resource_manager_endpoint: weakString({
    description: 'Azure Resource Manager base URL overriding the environment’s.',
  }),
  ca_certificate: weakString({
    description: 'PEM CA certificates trusted, besides the system ones, for the endpoints (private clouds).',
  }),
  request_timeout: weakDuration({ description: 'Seconds one Azure request may take (default 60).' }),
});

export const cloudAConfigReadSchema = z.object({
  subscription_id: z.string(),
  tenant_id: z.string(),
  client_id: z.string(),
  environment: z.string(),
  password_policy: z.string(),
  authority_host: z.string(),
  graph_endpoint: z.string(),
  resource_manager_endpoint: z.string(),
  ca_certificate: z.string(),
  request_timeout: z.number().int(),
});

export const cloudARoleBodySchema = z.object({
  cloud_a_roles: weakString({
    description: 'JSON array (as a string) of {role_name or role_id, scope}.',
  }),
  cloud_a_groups: weakString({ description: 'JSON array (as a string) of {group_name or object_id}.' }),
  application_object_id: weakString({ description: 'Existing application: creds are passwords on it.' }),
  ttl: weakDuration({ description: 'Default lease TTL (default: the system’s).' }),
  max_ttl: weakDuration({ description: 'Maximum lease TTL (default: the system’s).' }),
});

export const cloudARoleAssignmentSchema = z.object({
  role_name: z.string(),
  role_id: z.string(),
  scope: z.string(),
});
export const cloudAGroupSchema = z.object({ group_name: z.string(), object_id: z.string() });

export const cloudARoleReadSchema = z.object({
  cloud_a_roles: z.array(cloudARoleAssignmentSchema).nullable(),
  cloud_a_groups: z.array(cloudAGroupSchema).nullable(),
  application_object_id: z.string(),
  ttl: z.number().int(),
  max_ttl: z.number().int(),
});

export const cloudAListSchema = z.object({ keys: z.array(z.string()) });

export const cloudACredsSchema = z.object({ client_id: z.string(), client_secret: z.string() });
