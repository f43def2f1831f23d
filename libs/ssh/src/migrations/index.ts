import type { Migration } from 'kysely';
import { replicaLogMigration } from '@coffer/event-store';
import { sshReadModel0001 } from './0001_ssh_read_model';

/** Migration history of the "ssh" schema (event log tables are created by the event store). */
export const sshMigrations: Record<string, Migration> = {
  '0001_ssh_read_model': sshReadModel0001,
  '0002_ssh_replica_log': replicaLogMigration('ssh'),
};
