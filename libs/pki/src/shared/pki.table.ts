import type { Transaction } from 'kysely';
import { ServiceDb } from '@coffer/event-store';

/**
 * Read model of the pki service (schema "pki"). Everything stored is barrier ciphertext
 * (`sealed`): the CA key, roles, settings and issued certificates alike; only what listing,
 * revocation and tidy select by stays in clear (serials, times). Times are unix milliseconds.
 */
export interface DocumentsTable {
  mount_uuid: string;
  /** "issuer", "role", "crl-config", "urls", "crl-state", "unified-revocation", "cross-revocation" */
  kind: string;
  /** the role name; "" for mount-wide documents */
  name: string;
  /** barrier-encrypted JSON of the aggregate's current state */
  sealed: Buffer;
  stream_version: number;
}

export interface CertificatesTable {
  mount_uuid: string;
  /** colon-separated lowercase hex */
  serial: string;
  /** barrier-encrypted PEM of the certificate */
  sealed: Buffer;
  not_after_ms: number;
  /** null while not revoked */
  revoked_ms: number | null;
  stream_version: number;
}

export interface PkiDatabase {
  documents: DocumentsTable;
  certificates: CertificatesTable;
}

export class PkiDb extends ServiceDb<PkiDatabase> {}
export type PkiTrx = Transaction<PkiDatabase>;
