import type { KeyRow, VersionRow } from './kv2.repository';
import type { KeyState, VersionState } from './kv2.state';

/** Read-model rows to decision state. `customMetadata` is the already-decrypted map. */
export function toKeyState(
  key: KeyRow,
  versions: readonly VersionRow[],
  customMetadata: Record<string, string> | null,
): KeyState {
  const map = new Map<number, VersionState>();
  for (const v of versions) map.set(v.version, toVersionState(v.created_ms, v.deletion_ms, v.destroyed));
  return {
    currentVersion: key.current_version,
    oldestVersion: key.oldest_version,
    maxVersions: key.max_versions,
    casRequired: key.cas_required,
    deleteVersionAfter: key.delete_version_after,
    customMetadata,
    createdTime: new Date(key.created_ms).toISOString(),
    updatedTime: new Date(key.updated_ms).toISOString(),
    versions: map,
  };
}

export function toVersionState(
  createdMs: number,
  deletionMs: number | null,
  destroyed: boolean,
): VersionState {
  return {
    createdTime: new Date(createdMs).toISOString(),
    deletionTime: deletionMs === null ? null : new Date(deletionMs).toISOString(),
    destroyed,
  };
}
