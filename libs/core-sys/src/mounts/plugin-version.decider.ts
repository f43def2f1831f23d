import { invalidRequest } from '@coffer/contracts';
import { PLUGIN_VERSION_OPTION } from '@coffer/contracts/plugins';
import type { MountRecord } from './mount.model';

/**
 * An external plugin runs as one process per name (its service's NATS queue is the plugin's
 * name), so every mount of a plugin runs the same version: a mount asking for another version
 * than the one already mounted would silently be served by the running one, so it is refused.
 */
export function checkOnePluginVersion(
  table: readonly MountRecord[],
  type: string,
  version: string | undefined,
): void {
  if (version === undefined) return;
  const other = table.find(
    (m) =>
      m.type === type &&
      m.options[PLUGIN_VERSION_OPTION] !== undefined &&
      m.options[PLUGIN_VERSION_OPTION] !== version,
  );
  if (other)
    throw invalidRequest(
      `plugin "${type}" is mounted at "${other.path}" with version "${other.options[PLUGIN_VERSION_OPTION] ?? ''}"; every mount of a plugin runs the same version`,
    );
}
