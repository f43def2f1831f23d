import type { MountEntry, MountInfo } from '@coffer/contracts';

export interface MountMatch {
  entry: MountEntry;
  /** what engines receive in EngineRequest.mount (built once per table) */
  mount: MountInfo;
  /** path relative to the mount, no leading slash */
  rel: string;
}

/**
 * Longest-prefix lookup over "<namespace><mount path>" (mount paths end with "/"). A path equal to a
 * mount without its trailing slash ("secret") belongs to that mount, with an empty relative path.
 * Lookups walk the path's own "/" boundaries from the longest, so they cost one map probe per
 * segment however many mounts exist.
 */
export class MountIndex {
  private readonly byPrefix = new Map<string, { entry: MountEntry; mount: MountInfo }>();

  constructor(
    entries: readonly MountEntry[],
    readonly revision = 0,
  ) {
    for (const entry of entries) {
      const path = entry.path.endsWith('/') ? entry.path : `${entry.path}/`;
      const mount: MountInfo = {
        path,
        uuid: entry.uuid,
        accessor: entry.accessor,
        type: entry.type,
        namespace: entry.namespace,
        options: entry.options,
        config: entry.config,
      };
      this.byPrefix.set(entry.namespace + path, { entry, mount });
    }
  }

  get size(): number {
    return this.byPrefix.size;
  }

  find(fullPath: string): MountMatch | undefined {
    let prefix = fullPath.endsWith('/') ? fullPath : `${fullPath}/`;
    for (;;) {
      const hit = this.byPrefix.get(prefix);
      if (hit) return { ...hit, rel: fullPath.length > prefix.length ? fullPath.slice(prefix.length) : '' };
      // the next shorter prefix ending in "/"; each step strictly shortens it
      const cut = prefix.length < 2 ? -1 : prefix.lastIndexOf('/', prefix.length - 2);
      if (cut < 0) return undefined;
      prefix = prefix.slice(0, cut + 1);
    }
  }
}
