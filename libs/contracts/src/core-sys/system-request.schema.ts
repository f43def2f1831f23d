import { z } from 'zod';
import { weakInt, weakString, weakStringList, weakStringMap, weakBool } from '../fields';
import { fieldString, mountFlag, oneOf, optionalDuration } from './core-sys-fields.schema';

/**
 * Request bodies and queries of the `sys/` routes. Each is read the way Vault's handler reads it
 * (weakly: "3" is 3, null is "not set") and fails with that handler's text; rules that depend on
 * stored state stay in core-sys.
 */

const expectedIntegers = () => 'invalid request body: expected integers';

export const sysInitBody = z.object({
  secret_shares: weakInt({
    default: 0,
    message: expectedIntegers,
    description: 'Number of key shares to split the root key into.',
  }),
  secret_threshold: weakInt({
    default: 0,
    message: expectedIntegers,
    description: 'Number of key shares required to reconstruct the root key.',
  }),
  pgp_keys: weakStringList({ default: [], description: 'Not supported: PGP-encrypted key shares.' }),
  root_token_pgp_key: weakString({ default: '', description: 'Not supported: PGP-encrypted root token.' }),
});
export type SysInitBody = z.output<typeof sysInitBody>;

export const sysUnsealBody = z.object({
  key: weakString({ default: '', description: 'One unseal key share, hex or base64.' }),
  reset: weakBool({
    strictNumbers: true,
    message: () => "'reset' must be a boolean",
    description: 'Discard the key shares provided so far; wins over key.',
  }),
  migrate: weakBool({
    strictNumbers: true,
    message: () => "'migrate' must be a boolean",
    description: 'Seal migration (not supported; must be false).',
  }),
});
export type SysUnsealBody = z.output<typeof sysUnsealBody>;

/** Query values arrive as text; sys/health answers a bare 400 for bad ones (seal/health.ts). */
export const sysHealthQuery = z.object({
  standbyok: z.string().optional().describe('Answer activecode on a standby node.'),
  perfstandbyok: z.string().optional().describe('Answer activecode on a performance standby node.'),
  activecode: z.string().optional().describe('Status code when active (default 200).'),
  standbycode: z.string().optional().describe('Status code when standby (default 429).'),
  drsecondarycode: z.string().optional().describe('Status code for a DR secondary (default 472).'),
  performancestandbycode: z
    .string()
    .optional()
    .describe('Status code for a performance standby (default 473).'),
  sealedcode: z.string().optional().describe('Status code when sealed (default 503).'),
  uninitcode: z.string().optional().describe('Status code when not initialized (default 501).'),
  removedcode: z.string().optional().describe('Status code when removed from the cluster (default 530).'),
  haunhealthycode: z.string().optional().describe('Status code when HA is unhealthy (default 474).'),
});
export type SysHealthQuery = z.output<typeof sysHealthQuery>;

const LISTING_VISIBILITY = ['', 'unauth', 'hidden'] as const;
const listingVisibility = () =>
  oneOf(LISTING_VISIBILITY, (v) => `invalid listing_visibility ${v}`, '"unauth" or "hidden" (UI listing).');
/** A mount's engine options: scalars as text, null values left out. */
const mountOptions = (description: string) =>
  weakStringMap({
    nulls: 'skip',
    bools: 'text',
    valueMessage: ({ key }) => `invalid value for option '${key}': expected a string`,
    description,
  });

const mountConfigBody = z
  .object({
    default_lease_ttl: optionalDuration({
      description: 'Default lease TTL (duration or seconds).',
      wrap: (reason, input) => `unable to parse default TTL of ${input}: ${reason}`,
      zeroWord: 'system',
    }),
    max_lease_ttl: optionalDuration({
      description: 'Maximum lease TTL (duration or seconds).',
      wrap: (reason, input) => `unable to parse max TTL of ${input}: ${reason}`,
      zeroWord: 'system',
    }),
    force_no_cache: mountFlag('Disable caching.'),
    listing_visibility: listingVisibility(),
    token_type: fieldString('Auth methods: token type issued at login.'),
    audit_non_hmac_request_keys: weakStringList({
      description: 'Keys of request data audit devices log without HMAC.',
    }),
    audit_non_hmac_response_keys: weakStringList({
      description: 'Keys of response data audit devices log without HMAC.',
    }),
  })
  .describe('Configuration of the mount.');

/** POST sys/mounts/:path and sys/auth/:path. */
export const sysMountEnableBody = z.object({
  type: weakString({ default: '', description: 'Type of the backend, e.g. "kv" (required).' }),
  description: weakString({ default: '', description: 'Human-friendly description of the mount.' }),
  config: mountConfigBody.nullish(),
  options: mountOptions('Engine options, e.g. {"version":"2"} for kv.'),
  local: mountFlag('Local mount (not replicated).'),
  seal_wrap: mountFlag('Seal-wrap the mount data.'),
  external_entropy_access: mountFlag('Access to external entropy.'),
  plugin_version: weakString({ default: '', description: 'External plugins: the catalog version to run.' }),
});
export type SysMountEnableBody = z.output<typeof sysMountEnableBody>;

/** POST sys/mounts/:path/tune and sys/auth/:path/tune. */
export const sysMountTuneBody = z.object({
  default_lease_ttl: optionalDuration({
    description: 'Default lease TTL; "system" resets it.',
    zeroWord: 'system',
  }),
  max_lease_ttl: optionalDuration({
    description: 'Maximum lease TTL; "system" resets it.',
    zeroWord: 'system',
  }),
  description: weakString({ description: 'New description.' }),
  options: mountOptions('Engine options (kv: version upgrade 1 -> 2).'),
  listing_visibility: listingVisibility(),
  token_type: fieldString('Auth methods: token type issued at login.'),
  audit_non_hmac_request_keys: weakStringList({
    description: 'Keys of request data audit devices log without HMAC ("" clears).',
  }),
  audit_non_hmac_response_keys: weakStringList({
    description: 'Keys of response data audit devices log without HMAC ("" clears).',
  }),
});
export type SysMountTuneBody = z.output<typeof sysMountTuneBody>;

const policyMissing = () => "'policy' parameter not supplied or empty";
export const sysPolicyBody = z.object({
  policy: weakString({
    default: '',
    message: policyMissing,
    description: 'The policy document (HCL or JSON), optionally base64-encoded.',
  }),
  rules: weakString({
    default: '',
    message: policyMissing,
    description: 'Legacy sys/policy only: deprecated alias of policy.',
  }),
});
export type SysPolicyBody = z.output<typeof sysPolicyBody>;

export const sysCapabilitiesBody = z.object({
  token: weakString({ default: '', description: 'sys/capabilities: the token to check.' }),
  accessor: weakString({
    default: '',
    description: 'sys/capabilities-accessor: accessor of the token to check.',
  }),
  paths: weakStringList({ default: [], description: 'Paths to check.' }),
  path: weakStringList({ default: [], description: 'Deprecated: single path to check.' }),
});
export type SysCapabilitiesBody = z.output<typeof sysCapabilitiesBody>;
