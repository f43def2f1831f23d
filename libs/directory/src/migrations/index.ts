import type { Migration } from 'kysely';
import { replicaLogMigration } from '@coffer/event-store';
import { directoryReadModel0001 } from './0001_directory_read_model';

/** Migration history of the "directory" schema (event log tables are created by the event store). */
export const directoryMigrations: Record<string, Migration> = {
  '0001_directory_read_model': directoryReadModel0001,
  // a secondary keeps the primary's directory rows beside its own log (docs/replication.md)
  '0002_directory_replica_log': replicaLogMigration('directory'),
};
