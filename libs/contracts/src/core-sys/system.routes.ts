import { z } from 'zod';
import { engineContract, existenceContract, type OperationDef, type RouteTable } from '../routes';
import { auditContracts, auditRouteDefs } from './audit.routes';

import {
  capabilitiesData,
  keysData,
  keyStatusData,
  legacyPoliciesData,
  legacyPolicyData,
  mountInfoData,
  mountListingData,
  mountTuneData,
  noData,
  policyData,
  uiMountData,
  uiMountsData,
} from './core-sys-data.schema';
import { leaseRouteDefs } from './lease.routes';
import { passwordPolicyRouteDefs } from './password-policy.routes';
import { sysHealthRaw, sysInitRaw, sysInitStatusRaw, sysSealStatusRaw } from './core-sys-raw.schema';
import {
  sysCapabilitiesBody,
  sysHealthQuery,
  sysInitBody,
  sysMountEnableBody,
  sysMountTuneBody,
  sysPolicyBody,
  sysUnsealBody,
} from './system-request.schema';
import { wrappingContracts, wrappingRoutes } from './wrapping.routes';
import { rekeyContracts, rekeyRouteDefs } from './rekey.routes';
import { pluginCatalogContracts, pluginCatalogRouteDefs } from './plugin-catalog.routes';
import { sentinelPolicyContracts, sentinelPolicyRouteDefs } from './sentinel-policy.routes';
import { metricsContracts, metricsRouteDefs } from './metrics.routes';
import { namespaceRouteDefs } from './namespace.routes';
import { remountContracts, remountRouteDefs } from './remount.routes';
import { historyRouteDefs } from './history.routes';

/** The `sys/` mount: seal/init/health, mounts and auth methods, ACL policies and capabilities. */

/** Routes whose pattern captures a mount path ("mounts/:path*"). */
const pathParams = z.object({ path: z.string().default('') }).prefault({});
/** Routes whose pattern captures a policy name. */
const nameParams = z.object({ name: z.string().default('') }).prefault({});

const enableBody = sysMountEnableBody.prefault({});
const tuneBody = sysMountTuneBody.prefault({});
const policyBody = sysPolicyBody.prefault({});
const capabilitiesBody = sysCapabilitiesBody.prefault({});

/**
 * Every sys contract, by use. init, sealStatus, unseal, seal and rotate are served by the seal
 * leader only (queue "core-sys-leader"), so unseal progress lives in one place and the root key
 * is only ever rebuilt there; the others by every core-sys replica.
 */
export const sysContracts = {
  initStatus: engineContract('core.sys.seal.init-status', { raw: sysInitStatusRaw }),
  init: engineContract('core.sys.seal.init', { body: sysInitBody.prefault({}), raw: sysInitRaw }),
  sealStatus: engineContract('core.sys.seal.status', { raw: sysSealStatusRaw }),
  unseal: engineContract('core.sys.seal.unseal', { body: sysUnsealBody.prefault({}), raw: sysSealStatusRaw }),
  seal: engineContract('core.sys.seal.seal', { data: noData }),
  health: engineContract('core.sys.seal.health', { query: sysHealthQuery.prefault({}), raw: sysHealthRaw }),
  keyStatus: engineContract('core.sys.seal.key-status', { data: keyStatusData }),
  rotate: engineContract('core.sys.seal.rotate', { data: noData }),
  mountsList: engineContract('core.sys.mounts.list', { data: mountListingData }),
  mountRead: engineContract('core.sys.mounts.read', { params: pathParams, data: mountInfoData }),
  mountEnable: engineContract('core.sys.mounts.enable', {
    params: pathParams,
    body: enableBody,
    data: noData,
  }),
  mountDisable: engineContract('core.sys.mounts.disable', { params: pathParams, data: noData }),
  mountTuneRead: engineContract('core.sys.mounts.tune-read', { params: pathParams, data: mountTuneData }),
  mountTune: engineContract('core.sys.mounts.tune', { params: pathParams, body: tuneBody, data: noData }),
  authList: engineContract('core.sys.auth.list', { data: mountListingData }),
  authRead: engineContract('core.sys.auth.read', { params: pathParams, data: mountInfoData }),
  authEnable: engineContract('core.sys.auth.enable', { params: pathParams, body: enableBody, data: noData }),
  authDisable: engineContract('core.sys.auth.disable', { params: pathParams, data: noData }),
  authTuneRead: engineContract('core.sys.auth.tune-read', { params: pathParams, data: mountTuneData }),
  authTune: engineContract('core.sys.auth.tune', { params: pathParams, body: tuneBody, data: noData }),
  uiMounts: engineContract('core.sys.mounts.ui-list', { data: uiMountsData }),
  uiMount: engineContract('core.sys.mounts.ui-read', { params: pathParams, data: uiMountData }),
  policiesList: engineContract('core.sys.policies.list', { data: keysData }),
  policyRead: engineContract('core.sys.policies.read', { params: nameParams, data: policyData }),
  policyWrite: engineContract('core.sys.policies.write', {
    params: nameParams,
    body: policyBody,
    data: noData,
  }),
  policyDelete: engineContract('core.sys.policies.delete', { params: nameParams, data: noData }),
  policyExists: existenceContract('core.sys.policies.exists'),
  legacyPoliciesList: engineContract('core.sys.policies.legacy-list', { data: legacyPoliciesData }),
  legacyPolicyRead: engineContract('core.sys.policies.legacy-read', {
    params: nameParams,
    data: legacyPolicyData,
  }),
  legacyPolicyWrite: engineContract('core.sys.policies.legacy-write', {
    params: nameParams,
    body: policyBody,
    data: noData,
  }),
  legacyPolicyDelete: engineContract('core.sys.policies.legacy-delete', { params: nameParams, data: noData }),
  capabilitiesSelf: engineContract('core.sys.capabilities.self', {
    body: capabilitiesBody,
    data: capabilitiesData,
  }),
  capabilitiesToken: engineContract('core.sys.capabilities.token', {
    body: capabilitiesBody,
    data: capabilitiesData,
  }),
  capabilitiesAccessor: engineContract('core.sys.capabilities.accessor', {
    body: capabilitiesBody,
    data: capabilitiesData,
  }),
  // The merged rules of the caller's policies: their shape is the policies' own.
  resultantAcl: engineContract('core.sys.capabilities.resultant-acl'),
  // sys/audit, sys/audit-hash, sys/config/auditing (their own file)
  ...auditContracts,
  ...wrappingContracts,
  ...rekeyContracts,
  ...pluginCatalogContracts,
  ...sentinelPolicyContracts,
  ...metricsContracts,
  ...remountContracts,
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
      restricted: true,
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
      restricted: true,
      synopsis: 'Provides information about the backend encryption key.',
      description: 'Returns the active keyring term and its installation time.',
      operations: { read: op(c.keyStatus, 'Returns the active key term.') },
    },
    {
      pattern: 'rotate',
      restricted: true,
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
      replicated: 'mount',
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
      replicated: 'mount',
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
      replicated: 'mount',
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
      replicated: 'mount',
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
      replicated: true,
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
      replicated: true,
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
    ...auditRouteDefs,
    ...leaseRouteDefs,
    ...passwordPolicyRouteDefs,
    ...wrappingRoutes,
    ...rekeyRouteDefs,
    ...pluginCatalogRouteDefs,
    ...sentinelPolicyRouteDefs,
    ...metricsRouteDefs,
    ...namespaceRouteDefs,
    ...remountRouteDefs,
    ...historyRouteDefs,
  ],
};
