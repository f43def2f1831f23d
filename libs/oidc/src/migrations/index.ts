import type { Migration } from 'kysely';
import { oidcReadModel0001 } from './0001_oidc_read_model';
import { oidcReplicaLog0002 } from './0002_oidc_replica_log';

/** Migration history of the "oidc" schema (event log tables are created by the event store). */
export const oidcMigrations: Record<string, Migration> = {
  '0001_oidc_read_model': oidcReadModel0001,
  '0002_oidc_replica_log': oidcReplicaLog0002,
};
