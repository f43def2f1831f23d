import type { RawEvent } from '@coffer/event-store';

/** The mounts (by uuid) whose events must not leave the primary for one secondary. */
export interface StreamFilter {
  excludedMountUuids: ReadonlySet<string>;
  /** what the secondary is told (its dynamic filter) */
  mounts: string[];
  namespaces: string[];
}

/** A row as streamed: a filtered one keeps its place in the chain but not its payload. */
export interface StreamedRow {
  row: RawEvent;
  filtered: boolean;
}

/**
 * Streams are named `<aggregate>/<mount uuid>/<id>` (mount-scoped aggregates): a row is filtered
 * when its second segment is an excluded mount. Its position and chain hash still go (so the
 * secondary's WAL stays gap-free and its merkle root comparable), never its ciphertext.
 */
export function filterEvents(filter: StreamFilter | undefined, rows: readonly RawEvent[]): StreamedRow[] {
  return rows.map((row) => {
    if (!filter || filter.excludedMountUuids.size === 0) return { row, filtered: false };
    const segment = row.stream.split('/')[1];
    return { row, filtered: segment !== undefined && filter.excludedMountUuids.has(segment) };
  });
}
