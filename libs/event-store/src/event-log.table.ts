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
  /**
   * Who caused the event (docs/history.md, change feed): the caller's token accessor, entity id
   * and request id, null when no request was being served (background jobs, replicated rows,
   * events appended before 0001_event_log_actor). Beside the hash chain, not in it: see
   * docs/history.md. The accessor is not a secret; the token id is never recorded.
   */
  actor_accessor: string | null;
  actor_entity_id: string | null;
  request_id: string | null;
  /** the path of that request, from the root namespace ("ns1/secret/data/x") */
  request_path: string | null;
}

export interface EventLogDb {
  event_log: EventLogTable;
}

export type EventLogKysely = Kysely<EventLogDb>;

export const EVENT_LOG_TABLE = 'event_log';
/** unique (stream, stream_version): the optimistic-concurrency backstop and the stream index */
export const STREAM_VERSION_CONSTRAINT = 'event_log_stream_version_key';
