import {
  DomainError,
  invalidRequest,
  type ApproleRoleBody,
  type ApproleRoleData,
  type ApproleSecretIdBody,
  type ApproleSecretIdData,
} from '@coffer/contracts';
import {
  applyTokenFields,
  cidrAllows,
  DEFAULT_TOKEN_SETTINGS,
  validateCidr,
} from '../userpass/userpass.decider';
import type { UserTokenSettings } from '../userpass/userpass.events';
import type { ApproleRoleEvent, ApproleSecretIdEvent } from './approle.events';

export interface RoleState {
  mountUuid: string;
  roleName: string;
  roleId: string;
  bindSecretId: boolean;
  secretIdBoundCidrs: string[];
  secretIdNumUses: number;
  secretIdTtl: number;
  localSecretIds: boolean;
  settings: UserTokenSettings;
  /** deprecated `policies` / `period`: echoed on reads while set (Vault's backwards compat data) */
  legacyPolicies: string[];
  legacyPeriod: number;
}

export interface SecretIdState {
  mountUuid: string;
  hmac: string;
  roleName: string;
  accessor: string;
  metadata: Record<string, string>;
  cidrList: string[];
  tokenBoundCidrs: string[];
  /** uses left, 0 = unlimited */
  numUses: number;
  ttl: number;
  createdAt: number;
  lastUpdatedAt: number;
  expiresAt: number | null;
}

export function evolveRole(state: RoleState | null, event: ApproleRoleEvent): RoleState | null {
  switch (event.type) {
    case 'ApproleRoleWritten': {
      const { writtenAt: _w, ...role } = event.data;
      return role;
    }
    case 'ApproleRoleIdSet':
      return state && { ...state, roleId: event.data.roleId };
    case 'ApproleRoleDeleted':
      return null;
  }
}

/** A use of the last allowed use deletes the secret id (Vault: later logins fail). */
export function evolveSecretId(
  state: SecretIdState | null,
  event: ApproleSecretIdEvent,
): SecretIdState | null {
  switch (event.type) {
    case 'ApproleSecretIdCreated': {
      const { createdAt, ...rest } = event.data;
      return { ...rest, createdAt, lastUpdatedAt: createdAt };
    }
    case 'ApproleSecretIdUsed':
      if (!state) return null;
      if (state.numUses === 1) return null;
      return { ...state, numUses: state.numUses - 1, lastUpdatedAt: event.data.usedAt };
    case 'ApproleSecretIdDestroyed':
      return null;
  }
}

/** Vault's framework.GenericNameRegex; role names are case-insensitive (stored lower-cased). */
const ROLE_NAME = /^\w(([\w.-]+)?\w)?$/;

export function normalizeRoleName(raw: string): string {
  if (!ROLE_NAME.test(raw)) throw new DomainError('unsupported_path', 'unsupported path');
  return raw.toLowerCase();
}

/** Vault's cidrutil.ValidateCIDRListSlice: every entry an IP or CIDR block (normalised to addr/bits). */
function parseCidrs(list: readonly string[]): string[] {
  return list
    .map((c) => c.trim())
    .filter((c) => c !== '')
    .map((cidr) => {
      try {
        return validateCidr(cidr);
      } catch {
        throw invalidRequest('invalid CIDR blocks');
      }
    });
}

/** Whether every block of `inner` lies inside one of `outer` (Vault's verifyCIDRRoleSecretIDSubset). */
export function cidrSubset(inner: readonly string[], outer: readonly string[]): boolean {
  if (outer.length === 0) return true;
  if (inner.length === 0) return false;
  return inner.every((cidr) => {
    const [addr = '', bits = ''] = cidr.split('/');
    return outer.some((o) => Number(o.split('/')[1]) <= Number(bits) && cidrAllows([o], addr));
  });
}

/** A role write (create when `current` is null): Vault's pathRoleCreateUpdate checks, in order. */
export function decideRoleWrite(
  current: RoleState | null,
  key: { mountUuid: string; roleName: string },
  body: ApproleRoleBody,
  generatedRoleId: string,
): RoleState {
  if (current && body.local_secret_ids !== undefined) {
    throw invalidRequest('local_secret_ids can only be modified during role creation');
  }
  const roleId =
    body.role_id !== undefined && body.role_id !== '' ? body.role_id : (current?.roleId ?? generatedRoleId);
  const bindSecretId = body.bind_secret_id ?? current?.bindSecretId ?? true;
  const secretIdBoundCidrs =
    body.secret_id_bound_cidrs !== undefined
      ? parseCidrs(body.secret_id_bound_cidrs)
      : (current?.secretIdBoundCidrs ?? []);
  const secretIdNumUses = body.secret_id_num_uses ?? current?.secretIdNumUses ?? 0;
  if (secretIdNumUses < 0) throw invalidRequest('secret_id_num_uses cannot be negative');
  const secretIdTtl = body.secret_id_ttl ?? current?.secretIdTtl ?? 0;
  if (secretIdTtl < 0) throw invalidRequest('secret_id_ttl cannot be negative');
  const settings = applyTokenFields(current?.settings ?? DEFAULT_TOKEN_SETTINGS, {
    ...body,
    token_period: body.token_period ?? body.period,
    // AppRole has no ttl / max_ttl / bound_cidrs aliases
    ttl: undefined,
    max_ttl: undefined,
    bound_cidrs: undefined,
  });
  if (!bindSecretId && secretIdBoundCidrs.length === 0 && settings.tokenBoundCidrs.length === 0) {
    throw invalidRequest('at least one constraint should be enabled on the role');
  }
  return {
    ...key,
    roleId,
    bindSecretId,
    secretIdBoundCidrs,
    secretIdNumUses,
    secretIdTtl,
    localSecretIds: current?.localSecretIds ?? body.local_secret_ids ?? false,
    settings,
    legacyPolicies: upgradeValue(body.policies, body.token_policies, current?.legacyPolicies ?? [], () => [
      ...settings.tokenPolicies,
    ]),
    legacyPeriod: upgradeValue(
      body.period,
      body.token_period,
      current?.legacyPeriod ?? 0,
      () => settings.tokenPeriod,
    ),
  };
}

/**
 * Vault's tokenutil.UpgradeValue for a deprecated field: given alone, it mirrors the new value;
 * given with the new field, it mirrors it too; the new field alone clears it; neither keeps it.
 */
function upgradeValue<T>(oldGiven: unknown, newGiven: unknown, current: T, mirrored: () => T): T {
  if (newGiven === undefined) return oldGiven === undefined ? current : mirrored();
  return oldGiven === undefined ? cleared(current) : mirrored();
}

function cleared<T>(value: T): T {
  return (Array.isArray(value) ? [] : 0) as T;
}

export interface SecretIdSettings {
  metadata: Record<string, string>;
  cidrList: string[];
  tokenBoundCidrs: string[];
  numUses: number;
  ttl: number;
}

/** A new secret id's settings under its role (Vault's handleRoleSecretIDCommon checks). */
export function decideSecretIdSettings(role: RoleState, body: ApproleSecretIdBody): SecretIdSettings {
  if (!role.bindSecretId) throw invalidRequest('bind_secret_id is not set on the role');
  const cidrList = parseCidrs(body.cidr_list ?? []);
  if (cidrList.length > 0 && !cidrSubset(cidrList, role.secretIdBoundCidrs)) {
    throw invalidRequest(
      'failed to verify the CIDR restrictions set on the secret ID: ' +
        'CIDR restrictions on the secret ID are not a subset of the ones on the role',
    );
  }
  const tokenBoundCidrs = parseCidrs(body.token_bound_cidrs ?? []);
  if (tokenBoundCidrs.length > 0 && !cidrSubset(tokenBoundCidrs, role.settings.tokenBoundCidrs)) {
    throw invalidRequest(
      'failed to verify the token bound CIDR restrictions set on the secret ID: ' +
        'CIDR restrictions on the secret ID are not a subset of the ones on the role',
    );
  }
  const numUses = body.num_uses ?? role.secretIdNumUses;
  if (numUses < 0) throw invalidRequest('num_uses cannot be negative');
  if (role.secretIdNumUses > 0 && (numUses === 0 || numUses > role.secretIdNumUses)) {
    throw invalidRequest("num_uses cannot be higher than the role's secret_id_num_uses");
  }
  const ttl = body.ttl ?? role.secretIdTtl;
  if (ttl < 0) throw invalidRequest('ttl cannot be negative');
  if (role.secretIdTtl > 0 && (ttl === 0 || ttl > role.secretIdTtl)) {
    throw invalidRequest("ttl cannot be longer than the role's secret_id_ttl");
  }
  return { metadata: parseMetadata(body.metadata), cidrList, tokenBoundCidrs, numUses, ttl };
}

/** `metadata` is a JSON object of strings, given as a string (Vault's secret-id metadata). */
export function parseMetadata(raw: string | undefined): Record<string, string> {
  if (raw === undefined || raw === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw invalidRequest('failed to parse metadata: invalid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw invalidRequest('failed to parse metadata: expected a JSON object');
  }
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [k, v] of Object.entries(parsed)) {
    if (typeof v !== 'string') throw invalidRequest('failed to parse metadata: values must be strings');
    out[k] = v;
  }
  return { ...out };
}

/** Why a login with this secret id is refused from `address` at `now`, or null (Vault's order). */
export function secretIdRefusal(
  role: RoleState,
  secretId: SecretIdState,
  address: string,
  now: number,
): DomainError | null {
  if (secretId.expiresAt !== null && secretId.expiresAt <= now) return invalidRequest('invalid secret id');
  if (secretId.cidrList.length > 0 && !cidrAllows(secretId.cidrList, address)) {
    return invalidRequest(
      `source address ${JSON.stringify(address)} unauthorized by CIDR restrictions on the secret ID`,
    );
  }
  return roleRefusal(role, address);
}

export function roleRefusal(role: RoleState, address: string): DomainError | null {
  if (role.secretIdBoundCidrs.length > 0 && !cidrAllows(role.secretIdBoundCidrs, address)) {
    return invalidRequest(
      `source address ${JSON.stringify(address)} unauthorized by CIDR restrictions on the role`,
    );
  }
  return null;
}

export function roleView(role: RoleState): ApproleRoleData {
  const s = role.settings;
  return {
    bind_secret_id: role.bindSecretId,
    local_secret_ids: role.localSecretIds,
    secret_id_bound_cidrs: role.secretIdBoundCidrs,
    secret_id_num_uses: role.secretIdNumUses,
    secret_id_ttl: role.secretIdTtl,
    token_bound_cidrs: s.tokenBoundCidrs,
    token_explicit_max_ttl: s.tokenExplicitMaxTtl,
    token_max_ttl: s.tokenMaxTtl,
    token_no_default_policy: s.tokenNoDefaultPolicy,
    token_num_uses: s.tokenNumUses,
    token_period: s.tokenPeriod,
    token_policies: s.tokenPolicies,
    token_ttl: s.tokenTtl,
    token_type: s.tokenType,
    // Vault's backwards compat data: only while set
    ...(role.legacyPeriod !== 0 ? { period: role.legacyPeriod } : {}),
    ...(role.legacyPolicies.length > 0 ? { policies: role.legacyPolicies } : {}),
  };
}

/** Go's zero time, what Vault shows for a secret id that never expires. */
const ZERO_TIME = '0001-01-01T00:00:00Z';

export function secretIdView(s: SecretIdState): ApproleSecretIdData {
  return {
    cidr_list: s.cidrList,
    creation_time: new Date(s.createdAt).toISOString(),
    expiration_time: s.expiresAt === null ? ZERO_TIME : new Date(s.expiresAt).toISOString(),
    last_updated_time: new Date(s.lastUpdatedAt).toISOString(),
    metadata: s.metadata,
    secret_id_accessor: s.accessor,
    secret_id_num_uses: s.numUses,
    secret_id_ttl: s.ttl,
    token_bound_cidrs: s.tokenBoundCidrs,
  };
}
