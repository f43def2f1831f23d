import { z } from 'zod';
import { engineContract, existenceContract, type OperationDef, type RouteTable } from '../routes';

/**
 * The `sys/` mount: seal/init/health, mounts and auth methods, ACL policies and capabilities.
 * Body schemas are deliberately permissive (every field optional, numbers may come as numeric
 * strings, unknown keys kept): like Vault, core-sys checks them itself and answers with Vault's
 * exact error texts, which a stricter gateway-side validation would replace.
 */

/** Vault decodes ints weakly: a JSON number or a numeric string. */
const intLike = z.union([z.number().int(), z.string().regex(/^-?\d+$/)]);
/** Vault accepts bools as JSON booleans or strconv.ParseBool strings. */
const boolLike = z.union([z.boolean(), z.string()]);
/** Durations: integer seconds or a Go duration string ("30m", "768h"), or "system" to reset. */
const durationLike = z.union([z.number().int().nonnegative(), z.string()]);

export const sysInitBody = z.looseObject({
  secret_shares: intLike.optional().describe('Number of key shares to split the root key into.'),
  secret_threshold: intLike.optional().describe('Number of key shares required to reconstruct the root key.'),
  pgp_keys: z.array(z.string()).optional().describe('Not supported: PGP-encrypted key shares.'),
  root_token_pgp_key: z.string().optional().describe('Not supported: PGP-encrypted root token.'),
});

export const sysUnsealBody = z.looseObject({
  key: z.string().optional().describe('One unseal key share, hex or base64.'),
  reset: boolLike.optional().describe('Discard the key shares provided so far; wins over key.'),
  migrate: boolLike.optional().describe('Seal migration (not supported; must be false).'),
});

export const sysHealthQuery = z.looseObject({
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
});

const mountConfigBody = z.looseObject({
  default_lease_ttl: durationLike.optional().describe('Default lease TTL (duration or seconds).'),
  max_lease_ttl: durationLike.optional().describe('Maximum lease TTL (duration or seconds).'),
  force_no_cache: boolLike.optional().describe('Disable caching.'),
  listing_visibility: z.string().optional().describe('"unauth" or "hidden" (UI listing).'),
  token_type: z.string().optional().describe('Auth methods: token type issued at login.'),
});

export const sysMountEnableBody = z.looseObject({
  type: z.string().optional().describe('Type of the backend, e.g. "kv" (required).'),
  description: z.string().optional().describe('Human-friendly description of the mount.'),
  config: mountConfigBody.optional().describe('Configuration of the mount.'),
  options: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('Engine options, e.g. {"version":"2"} for kv.'),
  local: boolLike.optional().describe('Local mount (not replicated).'),
  seal_wrap: boolLike.optional().describe('Seal-wrap the mount data.'),
  external_entropy_access: boolLike.optional().describe('Access to external entropy.'),
});

export const sysMountTuneBody = z.looseObject({
  default_lease_ttl: durationLike.optional().describe('Default lease TTL; "system" resets it.'),
  max_lease_ttl: durationLike.optional().describe('Maximum lease TTL; "system" resets it.'),
  description: z.string().optional().describe('New description.'),
  options: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('Engine options (kv: version upgrade 1 -> 2).'),
  listing_visibility: z.string().optional().describe('"unauth" or "hidden".'),
  token_type: z.string().optional().describe('Auth methods: token type issued at login.'),
});

export const sysPolicyBody = z.looseObject({
  policy: z.string().optional().describe('The policy document (HCL or JSON), optionally base64-encoded.'),
  rules: z.string().optional().describe('Legacy sys/policy only: deprecated alias of policy.'),
});

export const sysCapabilitiesBody = z.looseObject({
  token: z.string().optional().describe('sys/capabilities: the token to check.'),
  accessor: z.string().optional().describe('sys/capabilities-accessor: accessor of the token to check.'),
  paths: z
    .union([z.array(z.string()), z.string()])
    .optional()
    .describe('Paths to check.'),
  path: z
    .union([z.array(z.string()), z.string()])
    .optional()
    .describe('Deprecated: single path to check.'),
});

// eslint-disable-next-line @typescript-eslint/no-unused-vars -- core-sys's move onto typed contracts uses it
const mountEntryData = z.record(z.string(), z.unknown());

/**
 * Every sys contract, by use. init, sealStatus, unseal, seal and rotate are served by the seal
 * leader only (queue "core-sys-leader"), so unseal progress lives in one place and the root key
 * is only ever rebuilt there; the others by every core-sys replica.
 */
export const sysContracts = {
  initStatus: engineContract('core.sys.seal.init-status'),
  init: engineContract('core.sys.seal.init'),
  sealStatus: engineContract('core.sys.seal.status'),
  unseal: engineContract('core.sys.seal.unseal'),
  seal: engineContract('core.sys.seal.seal'),
  health: engineContract('core.sys.seal.health'),
  keyStatus: engineContract('core.sys.seal.key-status'),
  rotate: engineContract('core.sys.seal.rotate'),
  mountsList: engineContract('core.sys.mounts.list'),
  mountRead: engineContract('core.sys.mounts.read'),
  mountEnable: engineContract('core.sys.mounts.enable'),
  mountDisable: engineContract('core.sys.mounts.disable'),
  mountTuneRead: engineContract('core.sys.mounts.tune-read'),
  mountTune: engineContract('core.sys.mounts.tune'),
  authList: engineContract('core.sys.auth.list'),
  authRead: engineContract('core.sys.auth.read'),
  authEnable: engineContract('core.sys.auth.enable'),
  authDisable: engineContract('core.sys.auth.disable'),
  authTuneRead: engineContract('core.sys.auth.tune-read'),
  authTune: engineContract('core.sys.auth.tune'),
  uiMounts: engineContract('core.sys.mounts.ui-list'),
  uiMount: engineContract('core.sys.mounts.ui-read'),
  policiesList: engineContract('core.sys.policies.list'),
  policyRead: engineContract('core.sys.policies.read'),
  policyWrite: engineContract('core.sys.policies.write'),
  policyDelete: engineContract('core.sys.policies.delete'),
  policyExists: existenceContract('core.sys.policies.exists'),
  legacyPoliciesList: engineContract('core.sys.policies.legacy-list'),
  legacyPolicyRead: engineContract('core.sys.policies.legacy-read'),
  legacyPolicyWrite: engineContract('core.sys.policies.legacy-write'),
  legacyPolicyDelete: engineContract('core.sys.policies.legacy-delete'),
  capabilitiesSelf: engineContract('core.sys.capabilities.self'),
  capabilitiesToken: engineContract('core.sys.capabilities.token'),
  capabilitiesAccessor: engineContract('core.sys.capabilities.accessor'),
  resultantAcl: engineContract('core.sys.capabilities.resultant-acl'),
} as const;

const op = (
  contract: OperationDef['contract'],
  summary: string,
  extra: Omit<OperationDef, 'contract' | 'summary'> = {},
): OperationDef => ({
  contract,
  summary,
  ...extra,
});

const c = sysContracts;

export const systemRoutes: RouteTable = {
  engine: 'system',
  service: 'core-sys',
  help: [
    'The system backend is always mounted at `sys/`. It controls the seal (init, unseal, seal,',
    'health, key rotation), the mount table of secrets engines and auth methods, ACL policies and',
    'capability checks.',
  ].join('\n'),
  routes: [
    {
      pattern: 'init',
      invalidates: ['mounts', 'seal'],
      synopsis: 'Initializes or returns the initialization status of the Vault.',
      description:
        'GET reports whether the storage is initialized. PUT generates the root key, splits it into secret_shares key shares of which secret_threshold are needed to unseal, and returns the shares with the initial root token. The service stays sealed afterwards.',
      unauthenticated: true,
      allowSealed: true,
      operations: {
        read: op(c.initStatus, 'Returns the initialization status.'),
        update: op(c.init, 'Initializes a new Vault.'),
      },
    },
    {
      pattern: 'seal-status',
      synopsis: 'Check the seal status of the Vault.',
      description:
        'Returns the seal type, threshold, number of shares, unseal progress and cluster identity.',
      unauthenticated: true,
      allowSealed: true,
      operations: { read: op(c.sealStatus, 'Returns the seal status.') },
    },
    {
      pattern: 'unseal',
      invalidates: ['mounts', 'seal'],
      synopsis: 'Unseal the Vault.',
      description:
        'Enters one unseal key share (hex or base64). Once the threshold is reached the root key is rebuilt and the keyring unlocked. reset=true discards the shares provided so far.',
      unauthenticated: true,
      allowSealed: true,
      operations: { update: op(c.unseal, 'Submits one unseal key share.') },
    },
    {
      pattern: 'seal',
      invalidates: ['mounts', 'seal'],
      synopsis: 'Seal the Vault.',
      description: 'Wipes the keyring from memory on every replica. Requires sudo on sys/seal.',
      sudo: true,
      operations: { update: op(c.seal, 'Seals the Vault.') },
    },
    {
      pattern: 'health',
      synopsis: 'Returns the health status of the Vault.',
      description:
        'Answers 200 when initialized, unsealed and active, 429 standby, 472 DR secondary, 473 performance standby, 501 not initialized, 503 sealed. Each code can be overridden with a query parameter; HEAD returns the status only.',
      unauthenticated: true,
      allowSealed: true,
      operations: { read: op(c.health, 'Returns the health status.') },
    },
    {
      pattern: 'key-status',
      synopsis: 'Provides information about the backend encryption key.',
      description: 'Returns the active keyring term and its installation time.',
      operations: { read: op(c.keyStatus, 'Returns the active key term.') },
    },
    {
      pattern: 'rotate',
      synopsis: 'Rotates the backend encryption key used to persist data.',
      description: 'Adds a new keyring term; new writes use it, older terms stay readable. Requires sudo.',
      sudo: true,
      operations: { update: op(c.rotate, 'Rotates the encryption key.') },
    },
    {
      pattern: 'mounts',
      synopsis: 'List the currently mounted backends.',
      description: 'Returns a map of mount path to type, description, accessor, config and options.',
      operations: { read: op(c.mountsList, 'Lists secrets engines.') },
    },
    {
      pattern: 'mounts/:path*',
      invalidates: ['mounts'],
      synopsis: 'Mount a new backend at a new path.',
      description:
        'POST enables a secrets engine of the given type at the path; DELETE disables it and destroys its data; GET reads the mount entry.',
      operations: {
        read: op(c.mountRead, 'Reads a mount entry.'),
        update: op(c.mountEnable, 'Enables a secrets engine.'),
        delete: op(c.mountDisable, 'Disables a secrets engine.'),
      },
    },
    {
      pattern: 'mounts/:path*/tune',
      invalidates: ['mounts'],
      synopsis: 'Tune backend configuration parameters for this mount.',
      description: 'Reads or changes the lease TTLs, description and options of a mount.',
      operations: {
        read: op(c.mountTuneRead, 'Reads the tunable configuration.'),
        update: op(c.mountTune, 'Tunes the mount.'),
      },
    },
    {
      pattern: 'auth',
      synopsis: 'List the currently enabled credential backends.',
      description: 'Returns a map of auth mount path (without the auth/ prefix) to its entry.',
      operations: { read: op(c.authList, 'Lists auth methods.') },
    },
    {
      pattern: 'auth/:path*',
      invalidates: ['mounts'],
      synopsis: 'Enable a new credential backend with a name.',
      description:
        'POST enables an auth method at auth/<path>; DELETE disables it; GET reads it. Requires sudo.',
      sudo: true,
      operations: {
        read: op(c.authRead, 'Reads an auth method entry.'),
        update: op(c.authEnable, 'Enables an auth method.'),
        delete: op(c.authDisable, 'Disables an auth method.'),
      },
    },
    {
      pattern: 'auth/:path*/tune',
      invalidates: ['mounts'],
      synopsis: 'Tune configuration parameters for a given auth path.',
      description:
        'Reads or changes the lease TTLs, description and options of an auth method. Requires sudo.',
      sudo: true,
      operations: {
        read: op(c.authTuneRead, 'Reads the tunable configuration.'),
        update: op(c.authTune, 'Tunes the auth method.'),
      },
    },
    {
      pattern: 'internal/ui/mounts',
      synopsis: 'Information about mounts the caller can access.',
      description: 'Lists the secrets engines and auth methods on which the caller holds any capability.',
      noAcl: true,
      operations: { read: op(c.uiMounts, 'Lists visible mounts.') },
    },
    {
      pattern: 'internal/ui/mounts/:path*',
      synopsis: 'Information about the mount serving a path.',
      description: 'Returns the mount entry serving the path (used by clients to detect the kv version).',
      noAcl: true,
      operations: { read: op(c.uiMount, 'Reads the mount serving a path.') },
    },
    {
      pattern: 'policies/acl',
      synopsis: 'List the configured ACL policies.',
      description: 'Lists ACL policy names, including the built-in default and root policies.',
      operations: { list: op(c.policiesList, 'Lists ACL policies.') },
    },
    {
      pattern: 'policies/acl/:name',
      synopsis: 'Read, Modify, or Delete an access control policy.',
      description:
        'The policy is HCL or JSON, optionally base64-encoded. Names are lower-cased. root cannot be changed; default cannot be deleted.',
      existenceCheck: c.policyExists,
      operations: {
        read: op(c.policyRead, 'Reads an ACL policy.'),
        create: op(c.policyWrite, 'Writes an ACL policy.'),
        update: op(c.policyWrite, 'Writes an ACL policy.'),
        delete: op(c.policyDelete, 'Deletes an ACL policy.'),
      },
    },
    {
      pattern: 'policy',
      synopsis: 'List the configured access control policies (legacy).',
      description: 'Returns the policy names as both policies and keys.',
      operations: {
        read: op(c.legacyPoliciesList, 'Lists ACL policies.'),
        list: op(c.legacyPoliciesList, 'Lists ACL policies.'),
      },
    },
    {
      pattern: 'policy/:name',
      synopsis: 'Read, Modify, or Delete an access control policy (legacy).',
      description: 'Legacy form of sys/policies/acl/:name; the document is returned as rules.',
      existenceCheck: c.policyExists,
      operations: {
        read: op(c.legacyPolicyRead, 'Reads an ACL policy.'),
        create: op(c.legacyPolicyWrite, 'Writes an ACL policy.'),
        update: op(c.legacyPolicyWrite, 'Writes an ACL policy.'),
        delete: op(c.legacyPolicyDelete, 'Deletes an ACL policy.'),
      },
    },
    {
      pattern: 'capabilities-self',
      synopsis: "Fetches the capabilities of the caller's token on the given paths.",
      description: 'Returns, for each path, the capabilities the calling token holds.',
      operations: {
        update: op(c.capabilitiesSelf, 'Checks own capabilities.'),
      },
    },
    {
      pattern: 'capabilities',
      synopsis: 'Fetches the capabilities of the given token on the given paths.',
      description: 'Returns, for each path, the capabilities the given token holds.',
      operations: {
        update: op(c.capabilitiesToken, 'Checks capabilities of a token.'),
      },
    },
    {
      pattern: 'capabilities-accessor',
      synopsis: 'Fetches the capabilities of the token associated with the given accessor.',
      description: 'Returns, for each path, the capabilities of the token behind the accessor.',
      operations: {
        update: op(c.capabilitiesAccessor, 'Checks capabilities by accessor.'),
      },
    },
    {
      pattern: 'internal/ui/resultant-acl',
      synopsis: "The caller's resultant ACL.",
      description: 'Returns the merged rules of every policy attached to the calling token.',
      noAcl: true,
      operations: { read: op(c.resultantAcl, 'Reads the resultant ACL.') },
    },
  ],
};
