import { invalidRequest, type SysCapabilitiesBody } from '@coffer/contracts';

/** Pure parts of sys/capabilities*: reading the paths and shaping the answer like Vault. */

export interface CapabilitiesRequest {
  paths: string[];
  token: string;
  accessor: string;
}

const nonBlank = (items: readonly string[]): string[] => items.filter((s) => s !== '');

/** `paths`, or the deprecated `path` when `paths` is empty. */
export function capabilitiesRequest(body: SysCapabilitiesBody): CapabilitiesRequest {
  let paths = nonBlank(body.paths);
  if (paths.length === 0) paths = nonBlank(body.path);
  if (paths.length === 0) throw invalidRequest('paths must be supplied');
  return { paths, token: body.token, accessor: body.accessor };
}

/**
 * {"<path>": [...]} plus "capabilities" for single-path callers (backwards compatibility). Paths
 * are the caller's: built with Object.fromEntries (own properties), "__proto__" is a path like
 * any other instead of the object's prototype.
 */
export function capabilitiesByPath(
  paths: readonly string[],
  capabilitiesOf: (path: string) => string[],
): Record<string, unknown> {
  const entries: [string, string[]][] = paths.map((path) => [path, capabilitiesOf(path)]);
  const only = entries.length === 1 ? entries[0] : undefined;
  if (only !== undefined) entries.push(['capabilities', only[1]]);
  return Object.fromEntries(entries);
}
