import type { Transaction } from 'kysely';
import { ServiceDb } from '@coffer/event-store';

/**
 * Read model of the oidc service (schema "oidc"). Every body is barrier-encrypted JSON (private
 * keys, client secrets, nonces); codes and access tokens are keyed by their SHA-256, never by
 * themselves. Times are unix milliseconds.
 */
export interface ResourcesTable {
  /** namespace path, "" for root */
  namespace: string;
  kind: ResourceKind;
  name: string;
  /** null once deleted (the row keeps the stream version) */
  body: Buffer | null;
  /** clients only: their generated client_id */
  client_id: string | null;
  /** keys only: when the key rotates next */
  next_rotation_ms: number | null;
  stream_version: number;
}

export type ResourceKind = 'key' | 'provider' | 'scope' | 'client' | 'assignment';

export interface CodesTable {
  code_hash: string;
  body: Buffer;
  expires_ms: number;
  state: CodeState;
  stream_version: number;
}

export type CodeState = 'issued' | 'redeemed' | 'replayed';

export interface AccessTokensTable {
  token_hash: string;
  code_hash: string;
  body: Buffer;
  expires_ms: number;
  revoked: boolean;
}

export interface OidcDatabase {
  resources: ResourcesTable;
  codes: CodesTable;
  access_tokens: AccessTokensTable;
}

export type OidcTrx = Transaction<OidcDatabase>;

/** The oidc service's typed view of the shared pool. */
export class OidcDb extends ServiceDb<OidcDatabase> {}
