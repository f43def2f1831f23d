import { REPLICATED_SERVICES } from '@coffer/contracts/replication';
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
 * when its second segment is an excluded mount, or when its service keys it by a namespace
 * (`namespaceOf`) that is filtered out. Its position and chain hash still go (so the
 * secondary's WAL stays gap-free and its merkle root comparable), never its ciphertext.
 */
export function filterEvents(
  filter: StreamFilter | undefined,
  rows: readonly RawEvent[],
  source = '',
): StreamedRow[] {
  const namespaceOf = NAMESPACE_KEYED.get(source);
  return rows.map((row) => {
    if (!filter) return { row, filtered: false };
    const segment = row.stream.split('/')[1];
    if (segment !== undefined && filter.excludedMountUuids.has(segment)) return { row, filtered: true };
    const namespace = namespaceOf?.(row.stream);
    return { row, filtered: namespace !== undefined && namespaceExcluded(filter, namespace) };
  });
}

/** The sources whose streams may be keyed by namespace (REPLICATED_SERVICES' `namespaceOf`). */
const NAMESPACE_KEYED: ReadonlyMap<string, (stream: string) => string | undefined> = new Map(
  REPLICATED_SERVICES.flatMap((s) => (s.namespaceOf ? [[s.schema, s.namespaceOf] as const] : [])),
);

/** A namespace filtered out, or inside one (the root namespace is never filtered). */
function namespaceExcluded(filter: StreamFilter, namespace: string): boolean {
  return namespace !== '' && filter.namespaces.some((ns) => namespace.startsWith(ns));
}
