import type { Migration } from 'kysely';
import { sshReadModel0001 } from './0001_ssh_read_model';

/** Migration history of the "ssh" schema (event log tables are created by the event store). */
export const sshMigrations: Record<string, Migration> = {
  '0001_ssh_read_model': sshReadModel0001,
};
