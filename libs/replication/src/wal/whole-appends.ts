/** The fields of a log row that tell where an append ends. */
export interface AppendRow {
  stream: string;
  streamVersion: number;
  /** one clock reading per append: every event of an append has the same */
  recordedAt: Date;
}

/**
 * A batch read with a row limit may stop inside an append, and a secondary projects an append's
 * events together (kv v2's version write and its prune): a batch that starts with the tail of an
 * append fails to apply, every time it is sent. The log does not record where an append ends,
 * but an append's events are consecutive versions of one stream stamped with one time, so a full
 * batch gives back its last append (and any earlier one of the same stream and millisecond it
 * cannot tell apart), to be sent whole with the next batch. A batch that is a single such run is
 * kept (nothing smaller could be sent; 500 events of one stream in one millisecond).
 */
export function wholeAppends<R extends AppendRow>(rows: readonly R[], limit: number): readonly R[] {
  if (rows.length < limit) return rows;
  for (let start = rows.length - 1; start > 0; start -= 1) {
    const before = rows[start - 1] as R;
    const row = rows[start] as R;
    if (
      before.stream !== row.stream ||
      before.streamVersion + 1 !== row.streamVersion ||
      before.recordedAt.getTime() !== row.recordedAt.getTime()
    )
      return rows.slice(0, start);
  }
  return rows;
}
