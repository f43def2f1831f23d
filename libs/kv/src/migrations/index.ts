import type { Migration } from 'kysely';
import { replicaLogMigration } from '@coffer/event-store';
import { kvReadModel0001 } from './0001_kv_read_model';
import { kvEventLogStreamPrefix0002 } from './0002_event_log_stream_prefix';

/** Migration history of the "kv" schema (event log tables are created by the event store). */
export const kvMigrations: Record<string, Migration> = {
  '0001_kv_read_model': kvReadModel0001,
  '0002_event_log_stream_prefix': kvEventLogStreamPrefix0002,
  '0003_kv_replica_log': replicaLogMigration('kv'),
};
