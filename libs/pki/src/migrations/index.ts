import type { Migration } from 'kysely';
import { replicaLogMigration } from '@coffer/event-store';
import { pkiReadModel0001 } from './0001_pki_read_model';

/** Migration history of the "pki" schema (event log tables are created by the event store). */
export const pkiMigrations: Record<string, Migration> = {
  '0001_pki_read_model': pkiReadModel0001,
  '0002_pki_replica_log': replicaLogMigration('pki'),
};
