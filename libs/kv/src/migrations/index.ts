import type { Migration } from 'kysely';
import { kvReadModel0001 } from './0001_kv_read_model';

/** Migration history of the "kv" schema (event log tables are created by the event store). */
export const kvMigrations: Record<string, Migration> = {
  '0001_kv_read_model': kvReadModel0001,
};
