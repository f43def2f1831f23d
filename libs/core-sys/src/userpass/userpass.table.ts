import type { ColumnType, Selectable } from 'kysely';
import type { UserState } from './userpass.decider';

type Json<T> = ColumnType<T, string, string>;

/** Read model of userpass users, per mount. */
export interface UserpassUsersTable {
  mount_uuid: string;
  username: string;
  password_hash: string;
  token_policies: Json<string[]>;
  token_ttl: number;
  token_max_ttl: number;
  token_explicit_max_ttl: number;
  token_period: number;
  token_num_uses: number;
  token_no_default_policy: boolean;
  token_type: string;
  token_bound_cidrs: Json<string[]>;
  /** version of the user's stream this row reflects */
  version: number;
}

export interface UserpassDatabase {
  userpass_users: UserpassUsersTable;
}

export const USER_COLUMNS = [
  'mount_uuid',
  'username',
  'password_hash',
  'token_policies',
  'token_ttl',
  'token_max_ttl',
  'token_explicit_max_ttl',
  'token_period',
  'token_num_uses',
  'token_no_default_policy',
  'token_type',
  'token_bound_cidrs',
  'version',
] as const;

export type UserRow = Pick<Selectable<UserpassUsersTable>, (typeof USER_COLUMNS)[number]>;

export interface VersionedUser {
  state: UserState;
  version: number;
}

export function rowToUser(row: UserRow): VersionedUser {
  return {
    version: row.version,
    state: {
      mountUuid: row.mount_uuid,
      username: row.username,
      passwordHash: row.password_hash,
      settings: {
        tokenPolicies: row.token_policies,
        tokenTtl: row.token_ttl,
        tokenMaxTtl: row.token_max_ttl,
        tokenExplicitMaxTtl: row.token_explicit_max_ttl,
        tokenPeriod: row.token_period,
        tokenNumUses: row.token_num_uses,
        tokenNoDefaultPolicy: row.token_no_default_policy,
        tokenType: row.token_type,
        tokenBoundCidrs: row.token_bound_cidrs,
      },
    },
  };
}

export function userToRow(state: UserState, version: number) {
  const s = state.settings;
  return {
    mount_uuid: state.mountUuid,
    username: state.username,
    password_hash: state.passwordHash,
    token_policies: JSON.stringify(s.tokenPolicies),
    token_ttl: s.tokenTtl,
    token_max_ttl: s.tokenMaxTtl,
    token_explicit_max_ttl: s.tokenExplicitMaxTtl,
    token_period: s.tokenPeriod,
    token_num_uses: s.tokenNumUses,
    token_no_default_policy: s.tokenNoDefaultPolicy,
    token_type: s.tokenType,
    token_bound_cidrs: JSON.stringify(s.tokenBoundCidrs),
    version,
  };
}
