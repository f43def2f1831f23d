import type { MountEntry } from '@coffer/contracts';

/** A performance secondary's paths filter (allow: only these; deny: all but these). */
export interface PathsFilter {
  mode: 'allow' | 'deny';
  /** mount and namespace paths, each with one trailing slash */
  paths: string[];
}

/** What the primary keeps from one secondary: the filtered mounts (full paths) and namespaces. */
export interface DynamicFilter {
  mounts: string[];
  namespaces: string[];
  /** uuids of the filtered mounts (streams are keyed by them) */
  mountUuids: string[];
}

/** A mount's path as filters name it: namespace, then "auth/" for auth methods, then the path. */
export function filterPathOf(m: Pick<MountEntry, 'namespace' | 'path' | 'table'>): string {
  return `${m.namespace}${m.table === 'auth' ? 'auth/' : ''}${m.path}`;
}

/** Every namespace a mount lives under ("a/b/" is under "a/" and "a/b/"). */
function namespacesOf(namespace: string): string[] {
  const parts = namespace.split('/').filter((p) => p !== '');
  return parts.map((_, i) => `${parts.slice(0, i + 1).join('/')}/`);
}

/**
 * The mounts a performance secondary does not receive, as Vault decides them: local mounts
 * never leave the primary; built-in mounts (sys/, token/, identity/...) always replicate; a
 * listed path covers the mount itself or a whole namespace. Allow mode keeps what is listed,
 * deny mode drops it.
 */
export function dynamicFilter(filter: PathsFilter | undefined, mounts: readonly MountEntry[]): DynamicFilter {
  const listed = new Set(filter?.paths ?? []);
  const out: DynamicFilter = { mounts: [], namespaces: [], mountUuids: [] };
  const namespaces = new Set<string>();
  for (const m of mounts) {
    if (m.table === 'system') continue;
    const nsList = namespacesOf(m.namespace);
    for (const ns of nsList) namespaces.add(ns);
    const hit = listed.has(filterPathOf(m)) || nsList.some((ns) => listed.has(ns));
    const excluded = m.local || (filter !== undefined && (filter.mode === 'allow' ? !hit : hit));
    if (excluded) {
      out.mounts.push(filterPathOf(m));
      out.mountUuids.push(m.uuid);
    }
  }
  if (filter) {
    for (const ns of [...namespaces].sort()) {
      const hit = listed.has(ns);
      if (filter.mode === 'allow' ? !hit && !nsListedBelow(ns, listed) : hit) out.namespaces.push(ns);
    }
  }
  out.mounts.sort();
  return out;
}

/** Allow mode keeps a namespace when something inside it is listed. */
function nsListedBelow(ns: string, listed: ReadonlySet<string>): boolean {
  for (const p of listed) if (p.startsWith(ns)) return true;
  return false;
}
