/**
 * Decision state of one kv v2 key (its metadata) and of a kv v2 mount (its engine config). The
 * service loads both from the read model, which the projection keeps exactly in step with the
 * key's event stream (same transaction), so no replay is needed to decide.
 */
export interface VersionState {
  /** RFC 3339 */
  createdTime: string;
  /** RFC 3339; set when soft-deleted or scheduled by delete_version_after, null otherwise */
  deletionTime: string | null;
  destroyed: boolean;
}

export interface KeyState {
  currentVersion: number;
  /** 0 until max_versions first prunes, like Vault */
  oldestVersion: number;
  /** key-level setting; 0 = use the engine's */
  maxVersions: number;
  casRequired: boolean;
  /** key-level delete_version_after in seconds; 0 = none */
  deleteVersionAfter: number;
  customMetadata: Record<string, string> | null;
  createdTime: string;
  updatedTime: string;
  /** versions not pruned, by number */
  versions: ReadonlyMap<number, VersionState>;
}

export interface EngineConfig {
  /** 0 = default (10) */
  maxVersions: number;
  casRequired: boolean;
  /** seconds; 0 = unset, negative = disabled for every key */
  deleteVersionAfter: number;
}

export const DEFAULT_ENGINE_CONFIG: EngineConfig = {
  maxVersions: 0,
  casRequired: false,
  deleteVersionAfter: 0,
};
export const DEFAULT_MAX_VERSIONS = 10;

/** A version counts as deleted once its deletion time is reached (Vault: deletionTime.Before(now)). */
export function isDeleted(version: VersionState, now: Date): boolean {
  return version.deletionTime !== null && Date.parse(version.deletionTime) <= now.getTime();
}
