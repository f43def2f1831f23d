import type { Kysely } from 'kysely';

/** Row of `<schema>.event_log` (int8 columns read back as number, see type-parsers.ts). */
export interface EventLogTable {
  wal: number;
  stream: string;
  stream_version: number;
  type: string;
  schema_version: number;
  /** barrier ciphertext of the JSON event data */
  payload: Buffer;
  recorded_at: Date;
  hash: string;
}

export interface EventLogDb {
  event_log: EventLogTable;
}

export type EventLogKysely = Kysely<EventLogDb>;

export const EVENT_LOG_TABLE = 'event_log';
/** unique (stream, stream_version): the optimistic-concurrency backstop and the stream index */
export const STREAM_VERSION_CONSTRAINT = 'event_log_stream_version_key';
