import { invalidRequest, sysCapabilitiesBody } from '@coffer/contracts';

/** Pure parts of sys/capabilities*: reading the paths and shaping the answer like Vault. */

/** Vault's TypeCommaStringSlice: an array, or a comma-separated string; blanks dropped. */
function commaSlice(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  const items = Array.isArray(value) ? value : value.split(',');
  return items.map((s) => s.trim()).filter((s) => s !== '');
}

export interface CapabilitiesRequest {
  paths: string[];
  token: string;
  accessor: string;
}

/** `paths`, or the deprecated `path` when `paths` is empty. */
export function parseCapabilitiesBody(raw: Record<string, unknown>): CapabilitiesRequest {
  const parsed = sysCapabilitiesBody.safeParse(raw);
  if (!parsed.success)
    throw invalidRequest(`invalid request body: ${parsed.error.issues[0]?.message ?? 'malformed'}`);
  let paths = commaSlice(parsed.data.paths);
  if (paths.length === 0) paths = commaSlice(parsed.data.path);
  if (paths.length === 0) throw invalidRequest('paths must be supplied');
  return { paths, token: parsed.data.token ?? '', accessor: parsed.data.accessor ?? '' };
}

/**
 * {"<path>": [...]} plus "capabilities" for single-path callers (backwards compatibility). Paths
 * are the caller's: built with Object.fromEntries (own properties), "__proto__" is a path like
 * any other instead of the object's prototype.
 */
export function capabilitiesData(
  paths: readonly string[],
  capabilitiesOf: (path: string) => string[],
): Record<string, unknown> {
  const entries: [string, string[]][] = paths.map((path) => [path, capabilitiesOf(path)]);
  const only = entries.length === 1 ? entries[0] : undefined;
  if (only !== undefined) entries.push(['capabilities', only[1]]);
  return Object.fromEntries(entries);
}
