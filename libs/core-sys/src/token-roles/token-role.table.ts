import type { ColumnType, Selectable } from 'kysely';
import type { TokenRoleState } from './token-role.decider';

type Json<T> = ColumnType<T, string, string>;

/** Read model of the token store's roles: the whole role, as its stream folds it. */
export interface TokenRolesTable {
  name: string;
  /** the role's settings (TokenRoleState) as JSON */
  role: Json<TokenRoleState>;
  /** version of the role's stream this row reflects */
  version: number;
}

export interface TokenRoleDatabase {
  token_roles: TokenRolesTable;
}

export type TokenRoleRow = Selectable<TokenRolesTable>;

export interface VersionedTokenRole {
  state: TokenRoleState;
  version: number;
}
