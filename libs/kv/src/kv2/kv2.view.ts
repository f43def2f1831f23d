import { formatDuration } from '@coffer/config';
import type { kvV2, ResponseOf } from '@coffer/contracts';
import type { EngineConfig, KeyState, VersionState } from './kv2.state';

/** Response bodies of kv v2, shaped (and key-ordered) like Vault's JSON; their contracts filter them. */

type ConfigData = NonNullable<ResponseOf<typeof kvV2.configRead>['data']>;
type MetadataData = NonNullable<ResponseOf<typeof kvV2.metadataRead>['data']>;

export interface VersionMetadataView {
  [key: string]: unknown;
  created_time: string;
  custom_metadata: Record<string, string> | null;
  deletion_time: string;
  destroyed: boolean;
  version: number;
}

export function versionMetadataView(
  state: Pick<KeyState, 'customMetadata'>,
  version: number,
  v: VersionState,
): VersionMetadataView {
  return {
    created_time: v.createdTime,
    custom_metadata: state.customMetadata,
    deletion_time: v.deletionTime ?? '',
    destroyed: v.destroyed,
    version,
  };
}

export function metadataView(state: KeyState): MetadataData {
  const versions: MetadataData['versions'] = {};
  for (const n of [...state.versions.keys()].sort((a, b) => a - b)) {
    const v = state.versions.get(n);
    if (!v) continue;
    versions[String(n)] = {
      created_time: v.createdTime,
      deletion_time: v.deletionTime ?? '',
      destroyed: v.destroyed,
    };
  }
  return {
    cas_required: state.casRequired,
    created_time: state.createdTime,
    current_version: state.currentVersion,
    custom_metadata: state.customMetadata,
    delete_version_after: formatDuration(state.deleteVersionAfter),
    max_versions: state.maxVersions,
    oldest_version: state.oldestVersion,
    updated_time: state.updatedTime,
    versions,
  };
}

export function configView(config: EngineConfig): ConfigData {
  return {
    cas_required: config.casRequired,
    delete_version_after: formatDuration(config.deleteVersionAfter),
    max_versions: config.maxVersions,
  };
}
