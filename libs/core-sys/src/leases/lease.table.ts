import type { Selectable } from 'kysely';

/** Read model of live leases (revoked ones are deleted); `internal` is encrypted by the barrier. */
export interface LeasesTable {
  lease_id: string;
  path: string;
  mount_uuid: string;
  mount_accessor: string;
  mount_path: string;
  mount_type: string;
  service: string;
  token_accessor: string | null;
  renewable: boolean;
  ttl: number;
  issued_at: number;
  expires_at: number;
  max_expires_at: number;
  last_renewal: number | null;
  attempts: number;
  next_attempt_at: number;
  irrevocable: boolean;
  last_error: string;
  /** base64 of the barrier-encrypted JSON of the engine's internal data */
  internal: string;
  /** version of the lease's stream this row reflects */
  version: number;
}

export interface LeasesDatabase {
  leases: LeasesTable;
}

export const LEASE_COLUMNS = [
  'lease_id',
  'path',
  'mount_uuid',
  'mount_accessor',
  'mount_path',
  'mount_type',
  'service',
  'token_accessor',
  'renewable',
  'ttl',
  'issued_at',
  'expires_at',
  'max_expires_at',
  'last_renewal',
  'attempts',
  'next_attempt_at',
  'irrevocable',
  'last_error',
  'internal',
  'version',
] as const;

export type LeaseRow = Pick<Selectable<LeasesTable>, (typeof LEASE_COLUMNS)[number]>;
