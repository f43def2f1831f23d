import type { ColumnType, Selectable } from 'kysely';
import type { UserTokenSettings } from '../userpass/userpass.events';
import type { RoleState, SecretIdState } from './approle.decider';

type Json<T> = ColumnType<T, string, string>;

/** Read model of AppRole roles, per mount. */
export interface ApproleRolesTable {
  mount_uuid: string;
  role_name: string;
  role_id: string;
  bind_secret_id: boolean;
  secret_id_bound_cidrs: Json<string[]>;
  secret_id_num_uses: number;
  secret_id_ttl: number;
  local_secret_ids: boolean;
  token_settings: Json<UserTokenSettings>;
  legacy_policies: Json<string[]>;
  legacy_period: number;
  /** version of the role's stream this row reflects */
  version: number;
}

/** Read model of secret ids: the HMAC, never the secret id. */
export interface ApproleSecretIdsTable {
  mount_uuid: string;
  hmac: string;
  role_name: string;
  accessor: string;
  metadata: Json<Record<string, string>>;
  cidr_list: Json<string[]>;
  token_bound_cidrs: Json<string[]>;
  /** uses left, 0 = unlimited */
  num_uses: number;
  ttl: number;
  created_at: number;
  last_updated_at: number;
  expires_at: number | null;
  version: number;
}

export interface ApproleDatabase {
  approle_roles: ApproleRolesTable;
  approle_secret_ids: ApproleSecretIdsTable;
}

/** Two roles of a mount cannot share a role id. */
export const ROLE_ID_UNIQUE = 'approle_roles_role_id_key';
/** Two secret ids of a mount cannot share an accessor. */
export const SECRET_ID_ACCESSOR_UNIQUE = 'approle_secret_ids_accessor_key';
/** Registering the same (custom) secret id twice. */
export const SECRET_ID_PKEY = 'approle_secret_ids_pkey';

export const ROLE_COLUMNS = [
  'mount_uuid',
  'role_name',
  'role_id',
  'bind_secret_id',
  'secret_id_bound_cidrs',
  'secret_id_num_uses',
  'secret_id_ttl',
  'local_secret_ids',
  'token_settings',
  'legacy_policies',
  'legacy_period',
  'version',
] as const;
export type RoleRow = Pick<Selectable<ApproleRolesTable>, (typeof ROLE_COLUMNS)[number]>;

export const SECRET_ID_COLUMNS = [
  'mount_uuid',
  'hmac',
  'role_name',
  'accessor',
  'metadata',
  'cidr_list',
  'token_bound_cidrs',
  'num_uses',
  'ttl',
  'created_at',
  'last_updated_at',
  'expires_at',
  'version',
] as const;
export type SecretIdRow = Pick<Selectable<ApproleSecretIdsTable>, (typeof SECRET_ID_COLUMNS)[number]>;

export interface Versioned<T> {
  state: T;
  version: number;
}

export function rowToRole(row: RoleRow): Versioned<RoleState> {
  return {
    version: row.version,
    state: {
      mountUuid: row.mount_uuid,
      roleName: row.role_name,
      roleId: row.role_id,
      bindSecretId: row.bind_secret_id,
      secretIdBoundCidrs: row.secret_id_bound_cidrs,
      secretIdNumUses: row.secret_id_num_uses,
      secretIdTtl: row.secret_id_ttl,
      localSecretIds: row.local_secret_ids,
      settings: row.token_settings,
      legacyPolicies: row.legacy_policies,
      legacyPeriod: row.legacy_period,
    },
  };
}

export function roleToRow(state: RoleState, version: number) {
  return {
    mount_uuid: state.mountUuid,
    role_name: state.roleName,
    role_id: state.roleId,
    bind_secret_id: state.bindSecretId,
    secret_id_bound_cidrs: JSON.stringify(state.secretIdBoundCidrs),
    secret_id_num_uses: state.secretIdNumUses,
    secret_id_ttl: state.secretIdTtl,
    local_secret_ids: state.localSecretIds,
    token_settings: JSON.stringify(state.settings),
    legacy_policies: JSON.stringify(state.legacyPolicies),
    legacy_period: state.legacyPeriod,
    version,
  };
}

export function rowToSecretId(row: SecretIdRow): Versioned<SecretIdState> {
  return {
    version: row.version,
    state: {
      mountUuid: row.mount_uuid,
      hmac: row.hmac,
      roleName: row.role_name,
      accessor: row.accessor,
      metadata: row.metadata,
      cidrList: row.cidr_list,
      tokenBoundCidrs: row.token_bound_cidrs,
      numUses: row.num_uses,
      ttl: row.ttl,
      createdAt: row.created_at,
      lastUpdatedAt: row.last_updated_at,
      expiresAt: row.expires_at,
    },
  };
}

export function secretIdToRow(state: SecretIdState, version: number) {
  return {
    mount_uuid: state.mountUuid,
    hmac: state.hmac,
    role_name: state.roleName,
    accessor: state.accessor,
    metadata: JSON.stringify(state.metadata),
    cidr_list: JSON.stringify(state.cidrList),
    token_bound_cidrs: JSON.stringify(state.tokenBoundCidrs),
    num_uses: state.numUses,
    ttl: state.ttl,
    created_at: state.createdAt,
    last_updated_at: state.lastUpdatedAt,
    expires_at: state.expiresAt,
    version,
  };
}
