import type { Migration } from 'kysely';
import { directoryReadModel0001 } from './0001_directory_read_model';

/** Migration history of the "directory" schema (event log tables are created by the event store). */
export const directoryMigrations: Record<string, Migration> = {
  '0001_directory_read_model': directoryReadModel0001,
};
