import type { ColumnType, Selectable } from 'kysely';
import type { TokenState } from './token.decider';

/** jsonb column: read back parsed, written as JSON text. */
type Json<T> = ColumnType<T, string, string>;

/** Read model of live tokens (revoked tokens are deleted; their history stays in the event log). */
export interface TokensTable {
  accessor: string;
  token_hash: string;
  token_ref: string;
  parent_accessor: string | null;
  policies: Json<string[]>;
  meta: Json<Record<string, string>>;
  display_name: string;
  num_uses: number;
  exhausted_at: number | null;
  renewable: boolean;
  creation_ttl: number;
  renew_ttl: number;
  backend_max_ttl: number;
  explicit_max_ttl: number;
  period: number;
  created_at: number;
  expires_at: number;
  last_renewed_at: number | null;
  path: string;
  entity_id: string;
  mount_accessor: string;
  /** token role it was created with, "" for none */
  role: string;
  /** token_bound_cidrs, [] for none */
  bound_cidrs: Json<string[]>;
  /** the token's namespace, "" for root */
  namespace: ColumnType<string, string | undefined, string>;
  /** version of the token's stream this row reflects (optimistic concurrency for the next append) */
  version: number;
}

export interface TokenDatabase {
  tokens: TokensTable;
}

export type TokenRow = Selectable<TokensTable>;

/** A token as stored, with the stream version to append after. */
export interface VersionedToken {
  state: TokenState;
  version: number;
}

export const TOKEN_COLUMNS = [
  'accessor',
  'token_hash',
  'token_ref',
  'parent_accessor',
  'policies',
  'meta',
  'display_name',
  'num_uses',
  'exhausted_at',
  'renewable',
  'creation_ttl',
  'renew_ttl',
  'backend_max_ttl',
  'explicit_max_ttl',
  'period',
  'created_at',
  'expires_at',
  'last_renewed_at',
  'path',
  'entity_id',
  'mount_accessor',
  'role',
  'bound_cidrs',
  'namespace',
  'version',
] as const;

export function rowToToken(row: TokenRow): VersionedToken {
  return {
    version: row.version,
    state: {
      accessor: row.accessor,
      tokenHash: row.token_hash,
      tokenRef: row.token_ref,
      parentAccessor: row.parent_accessor,
      policies: row.policies,
      meta: row.meta,
      displayName: row.display_name,
      numUses: row.num_uses,
      exhaustedAt: row.exhausted_at,
      renewable: row.renewable,
      creationTtl: row.creation_ttl,
      renewTtl: row.renew_ttl,
      backendMaxTtl: row.backend_max_ttl,
      explicitMaxTtl: row.explicit_max_ttl,
      period: row.period,
      createdAt: row.created_at,
      expiresAt: row.expires_at,
      lastRenewedAt: row.last_renewed_at,
      path: row.path,
      entityId: row.entity_id,
      mountAccessor: row.mount_accessor,
      ...(row.role !== '' ? { role: row.role } : {}),
      ...(row.bound_cidrs.length > 0 ? { boundCidrs: row.bound_cidrs } : {}),
      ...(row.namespace !== '' ? { namespace: row.namespace } : {}),
    },
  };
}

export function tokenToRow(state: TokenState, version: number) {
  return {
    accessor: state.accessor,
    token_hash: state.tokenHash,
    token_ref: state.tokenRef,
    parent_accessor: state.parentAccessor,
    policies: JSON.stringify(state.policies),
    meta: JSON.stringify(state.meta),
    display_name: state.displayName,
    num_uses: state.numUses,
    exhausted_at: state.exhaustedAt,
    renewable: state.renewable,
    creation_ttl: state.creationTtl,
    renew_ttl: state.renewTtl,
    backend_max_ttl: state.backendMaxTtl,
    explicit_max_ttl: state.explicitMaxTtl,
    period: state.period,
    created_at: state.createdAt,
    expires_at: state.expiresAt,
    last_renewed_at: state.lastRenewedAt,
    path: state.path,
    entity_id: state.entityId,
    mount_accessor: state.mountAccessor,
    role: state.role ?? '',
    bound_cidrs: JSON.stringify(state.boundCidrs ?? []),
    namespace: state.namespace ?? '',
    version,
  };
}
