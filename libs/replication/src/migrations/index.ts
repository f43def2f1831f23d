import type { Migration } from 'kysely';
import { replicationReadModel0001 } from './0001_replication_read_model';
import { replicationKeyrings0002 } from './0002_replication_keyrings';

/** Migration history of the "replication" schema (the event log is created by the event store). */
export const replicationMigrations: Record<string, Migration> = {
  '0001_replication_read_model': replicationReadModel0001,
  '0002_replication_keyrings': replicationKeyrings0002,
};
