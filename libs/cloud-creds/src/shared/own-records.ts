import type { EventStore } from '@coffer/event-store';
import type { CloudRecordRow } from './cloud-record.repository';

/**
 * The rows a recovery pass may act on: those whose stream this cluster's own log holds at the
 * row's version (it wrote them, or a promotion folded them in). A secondary's read model also
 * holds the primary's records (replayed from its replica log): their outside work (a creation to
 * undo, a lease to check, a root rotation to finish) is the primary's, and an append here would
 * fail anyway (the stream is not in this log). So a DR secondary leaves every replicated record
 * alone until its promotion has folded it, and a performance secondary the primary's config.
 */
export async function ownRows(
  events: Pick<EventStore, 'streamVersion'>,
  rows: readonly CloudRecordRow[],
  streamOf: (row: CloudRecordRow) => string,
): Promise<CloudRecordRow[]> {
  const own: CloudRecordRow[] = [];
  for (const row of rows)
    if ((await events.streamVersion(streamOf(row))) === row.stream_version) own.push(row);
  return own;
}
