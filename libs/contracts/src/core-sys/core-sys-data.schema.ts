import { z } from 'zod';
import { jsonObjectSchema, stringMapSchema } from '../fields';

/**
 * The `data` of core-sys responses, as Vault shapes them. Each is an allow-list: the transport
 * parses what a handler returns with it, so a field not declared here never leaves core-sys.
 * Maps whose keys a caller chose (metadata, meta) keep every key as it is (jsonObjectSchema).
 */

const strings = z.array(z.string());
/** A caller's key=value map, "__proto__" included; null when empty where Vault says so. */
const userMap = jsonObjectSchema;

/** Nothing: routes that answer 204, or only an auth block or warnings. */
export const noData = z.object({});

/** LIST answers. */
export const keysData = z.object({ keys: strings });

// --- sys/ -----------------------------------------------------------------------------------

const mountConfigData = z.object({
  default_lease_ttl: z.number(),
  max_lease_ttl: z.number(),
  force_no_cache: z.boolean(),
  listing_visibility: z.string().optional(),
  token_type: z.string().optional(),
  audit_non_hmac_request_keys: strings.optional(),
  audit_non_hmac_response_keys: strings.optional(),
});

/** One mount entry (logical_system.go mountInfo). */
export const mountInfoData = z.object({
  type: z.string(),
  description: z.string(),
  accessor: z.string(),
  config: mountConfigData,
  options: stringMapSchema.nullable(),
  local: z.boolean(),
  seal_wrap: z.boolean(),
  external_entropy_access: z.boolean(),
  uuid: z.string(),
  plugin_version: z.string(),
  running_plugin_version: z.string(),
  running_sha256: z.string(),
  deprecation_status: z.string().optional(),
});
export type MountInfoData = z.input<typeof mountInfoData>;

/** GET sys/mounts, sys/auth: listing path -> entry. */
export const mountListingData = z.record(z.string(), mountInfoData);
export type MountListingData = z.input<typeof mountListingData>;

/** GET sys/internal/ui/mounts. */
export const uiMountsData = z.object({ secret: mountListingData, auth: mountListingData });

/** GET sys/internal/ui/mounts/:path: the entry and its listing path. */
export const uiMountData = mountInfoData.extend({ path: z.string() });

/** GET sys/mounts/:path/tune, sys/auth/:path/tune. */
export const mountTuneData = z.object({
  default_lease_ttl: z.number(),
  max_lease_ttl: z.number(),
  force_no_cache: z.boolean(),
  description: z.string(),
  listing_visibility: z.string().optional(),
  token_type: z.string().optional(),
  audit_non_hmac_request_keys: strings.optional(),
  audit_non_hmac_response_keys: strings.optional(),
  options: stringMapSchema.optional(),
});
export type MountTuneData = z.input<typeof mountTuneData>;

export const keyStatusData = z.object({ term: z.number(), install_time: z.string() });

export const policyData = z.object({ name: z.string(), policy: z.string() });
export const legacyPolicyData = z.object({ name: z.string(), rules: z.string() });
export const legacyPoliciesData = z.object({ policies: strings, keys: strings });

/** path -> capabilities, plus `capabilities` for a single path (the paths are the caller's). */
export const capabilitiesData = userMap;

// --- auth/token/ ------------------------------------------------------------------------------

/** auth/token/lookup*: Vault's lookup data (lease fields only for expiring tokens). */
export const tokenLookupData = z.object({
  accessor: z.string(),
  creation_time: z.number(),
  creation_ttl: z.number(),
  display_name: z.string(),
  entity_id: z.string(),
  expire_time: z.string().nullable(),
  explicit_max_ttl: z.number(),
  id: z.string(),
  meta: userMap.nullable(),
  num_uses: z.number(),
  orphan: z.boolean(),
  path: z.string(),
  policies: strings,
  ttl: z.number(),
  type: z.string(),
  period: z.number().optional(),
  role: z.string().optional(),
  bound_cidrs: z.array(z.string()).optional(),
  renewable: z.boolean().optional(),
  issue_time: z.string().optional(),
  last_renewal_time: z.number().optional(),
  last_renewal: z.string().optional(),
  identity_policies: strings.optional(),
  external_namespace_policies: z.record(z.string(), z.unknown()).optional(),
});
export type TokenLookupData = z.input<typeof tokenLookupData>;

// --- auth/<userpass>/ -----------------------------------------------------------------------

export const userpassUserData = z.object({
  token_bound_cidrs: strings,
  token_explicit_max_ttl: z.number(),
  token_max_ttl: z.number(),
  token_no_default_policy: z.boolean(),
  token_num_uses: z.number(),
  token_period: z.number(),
  token_policies: strings,
  token_ttl: z.number(),
  token_type: z.string(),
});
export type UserpassUserData = z.input<typeof userpassUserData>;

// --- identity/ ------------------------------------------------------------------------------

/** Where an alias's auth mount is, when it still exists. */
const aliasMount = { mount_type: z.string().optional(), mount_path: z.string().optional() };

const entityAliasData = z.object({
  id: z.string(),
  canonical_id: z.string(),
  mount_accessor: z.string(),
  metadata: userMap.nullable(),
  name: z.string(),
  merged_from_canonical_ids: strings.nullable(),
  creation_time: z.string(),
  last_update_time: z.string(),
  local: z.boolean(),
  custom_metadata: userMap,
  ...aliasMount,
});

export const entityData = z.object({
  id: z.string(),
  name: z.string(),
  metadata: userMap.nullable(),
  merged_entity_ids: strings.nullable(),
  policies: strings,
  disabled: z.boolean(),
  namespace_id: z.string(),
  creation_time: z.string(),
  last_update_time: z.string(),
  aliases: z.array(entityAliasData),
  direct_group_ids: strings,
  inherited_group_ids: strings,
  group_ids: strings,
});
export type EntityData = z.input<typeof entityData>;

/** A new entity: 200 {id, name, aliases: null}; an update answers 204. */
export const entityCreatedData = z.object({ id: z.string(), name: z.string(), aliases: strings.nullable() });

export const entityListData = z.object({
  keys: strings,
  key_info: z.record(
    z.string(),
    z.object({
      name: z.string(),
      aliases: z
        .array(z.object({ id: z.string(), name: z.string(), mount_accessor: z.string(), ...aliasMount }))
        .optional(),
    }),
  ),
});
export type EntityListData = z.input<typeof entityListData>;

export const aliasData = z.object({
  id: z.string(),
  canonical_id: z.string(),
  mount_accessor: z.string(),
  metadata: userMap.nullable(),
  custom_metadata: userMap,
  name: z.string(),
  merged_from_canonical_ids: strings.nullable(),
  namespace_id: z.string(),
  local: z.boolean(),
  creation_time: z.string(),
  last_update_time: z.string(),
  ...aliasMount,
});

export type AliasData = z.input<typeof aliasData>;

export const aliasWrittenData = z.object({ id: z.string(), canonical_id: z.string() });

export const aliasListData = z.object({
  keys: strings,
  key_info: z.record(
    z.string(),
    z.object({
      canonical_id: z.string(),
      custom_metadata: userMap,
      local: z.boolean(),
      mount_accessor: z.string(),
      name: z.string(),
      ...aliasMount,
    }),
  ),
});
export type AliasListData = z.input<typeof aliasListData>;
