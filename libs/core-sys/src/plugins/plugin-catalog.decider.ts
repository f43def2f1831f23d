import path from 'node:path';
import {
  invalidRequest,
  PLUGIN_TYPES,
  type MountCatalogue,
  type PluginType,
  type SysPluginEntryData,
  type SysPluginRegisterBody,
} from '@coffer/contracts';

/**
 * Pure rules of the plugin catalog (Vault's logical_system.go plugin paths): validation of a
 * registration, the builtin entries derived from the mount catalogue, and the listings.
 */

export interface PluginEntry {
  type: PluginType;
  name: string;
  version: string;
  sha256: string;
  command: string;
  args: string[];
  env: string[];
}

export const DEPRECATION_SUPPORTED = 'supported';

export function parsePluginType(type: string): PluginType {
  const found = PLUGIN_TYPES.find((t) => t === type);
  if (!found) throw invalidRequest(`"${type}" is not a supported plugin type`);
  return found;
}

const SEMVER = /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

/** Validates a registration; `pluginDirectory` bounds absolute commands (none configured: refused). */
export function decidePluginRegistration(
  type: string,
  name: string,
  body: SysPluginRegisterBody,
  pluginDirectory: string | undefined,
): PluginEntry {
  const pluginType = parsePluginType(type);
  if (name === '') throw invalidRequest('missing plugin name');
  if (body.sha256 === '') throw invalidRequest('missing SHA-256 value');
  if (!/^[0-9a-fA-F]*$/.test(body.sha256) || body.sha256.length % 2 !== 0)
    throw invalidRequest('Could not decode SHA-256 value from Hex');
  if (body.sha256.length !== 64) throw invalidRequest('SHA-256 value must be 32 bytes (64 hex characters)');
  if (body.command === '') throw invalidRequest('missing command value');
  if (body.command.split(/[\\/]/).includes('..'))
    throw invalidRequest('path cannot contain parent references');
  if (path.isAbsolute(body.command)) {
    const dir = pluginDirectory === undefined ? undefined : path.resolve(pluginDirectory);
    if (dir === undefined || !path.resolve(body.command).startsWith(`${dir}${path.sep}`))
      throw invalidRequest('command must be inside the plugin directory');
  }
  if (body.version !== '') {
    if (!SEMVER.test(body.version))
      throw invalidRequest(`version "${body.version}" is not a valid semantic version`);
    if (body.version.includes('builtin')) throw invalidRequest('version is not allowed to contain "builtin"');
  }
  for (const e of body.env) {
    if (!/^[^=]+=/.test(e))
      throw invalidRequest(`env entry "${e.split('=')[0] ?? ''}" must be of the form key=value`);
  }
  return {
    type: pluginType,
    name,
    version: body.version,
    sha256: body.sha256.toLowerCase(),
    command: body.command,
    args: body.args,
    env: body.env,
  };
}

export interface BuiltinPlugin {
  type: PluginType;
  name: string;
  version: string;
}

/** Every secret and auth mount type the engines serve is a builtin plugin. */
export function builtinPlugins(catalogue: MountCatalogue, serviceVersion: string): BuiltinPlugin[] {
  const version = `v${serviceVersion}+builtin.coffer`;
  return [...catalogue.values()]
    .map((t) => ({ type: t.kind, name: t.type, version }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

export interface CatalogListing {
  auth: string[];
  database: string[];
  secret: string[];
  detailed: { name: string; type: string; version: string; builtin: boolean; deprecation_status?: string }[];
}

export function catalogListing(
  builtins: readonly BuiltinPlugin[],
  registered: readonly PluginEntry[],
): CatalogListing {
  const names: Record<PluginType, Set<string>> = { auth: new Set(), database: new Set(), secret: new Set() };
  const detailed: CatalogListing['detailed'] = [];
  for (const b of builtins) {
    names[b.type].add(b.name);
    detailed.push({
      name: b.name,
      type: b.type,
      version: b.version,
      builtin: true,
      deprecation_status: DEPRECATION_SUPPORTED,
    });
  }
  for (const r of registered) {
    names[r.type].add(r.name);
    detailed.push({ name: r.name, type: r.type, version: r.version, builtin: false });
  }
  detailed.sort(
    (a, b) =>
      a.type.localeCompare(b.type) || a.name.localeCompare(b.name) || a.version.localeCompare(b.version),
  );
  const sorted = (s: Set<string>) => [...s].sort();
  return {
    auth: sorted(names.auth),
    database: sorted(names.database),
    secret: sorted(names.secret),
    detailed,
  };
}

/**
 * GET sys/plugins/catalog/:type/:name: the registered entry of that version, else (no version)
 * the builtin; a name registered only with versions needs the version (400).
 */
export function pickPluginEntry(
  builtin: BuiltinPlugin | undefined,
  registered: readonly PluginEntry[],
  version: string | undefined,
): SysPluginEntryData | undefined {
  const wanted = version ?? '';
  const hit = registered.find((r) => r.version === wanted || (wanted !== '' && r.version === `v${wanted}`));
  if (hit)
    return {
      name: hit.name,
      version: hit.version,
      sha256: hit.sha256,
      command: hit.command,
      args: hit.args,
      builtin: false,
    };
  if (builtin && (wanted === '' || wanted === builtin.version))
    return {
      name: builtin.name,
      version: builtin.version,
      sha256: '',
      command: '',
      args: [],
      builtin: true,
      deprecation_status: DEPRECATION_SUPPORTED,
    };
  if (wanted === '' && registered.length > 0)
    throw invalidRequest('the plugin is registered with versions: the version parameter is required');
  return undefined;
}
