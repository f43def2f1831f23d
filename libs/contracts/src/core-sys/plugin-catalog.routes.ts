import { z } from 'zod';
import { weakString, weakStringList } from '../fields';
import { engineContract, type RouteDef } from '../routes';

/**
 * The plugin catalog (Vault's sys/plugins/catalog*): registered external plugins, versions side
 * by side, next to the builtin entries of every engine mount type. Root namespace only; register,
 * read and remove need sudo.
 */

export const PLUGIN_TYPES = ['auth', 'database', 'secret'] as const;
export type PluginType = (typeof PLUGIN_TYPES)[number];

const typeParams = z.object({ type: z.string().default('') }).prefault({});
const entryParams = z.object({ type: z.string().default(''), name: z.string().default('') }).prefault({});

export const sysPluginRegisterBody = z
  .object({
    sha256: weakString({ default: '', description: 'SHA-256 of the plugin binary, hex.' }),
    command: weakString({ default: '', description: 'The command, relative to the plugin directory.' }),
    version: weakString({
      default: '',
      description: 'Semantic version of the plugin; empty when unversioned.',
    }),
    args: weakStringList({ default: [], description: 'Arguments the command is started with.' }),
    env: weakStringList({ default: [], description: 'Environment of the command, key=value entries.' }),
  })
  .prefault({});
export type SysPluginRegisterBody = z.output<typeof sysPluginRegisterBody>;

export const sysPluginVersionQuery = z
  .object({ version: z.string().optional().describe('The version to read or remove.') })
  .prefault({});

export const pluginListingEntry = z.object({
  name: z.string(),
  type: z.string(),
  version: z.string(),
  builtin: z.boolean(),
  deprecation_status: z.string().optional(),
});

export const sysPluginCatalogData = z.object({
  auth: z.array(z.string()),
  database: z.array(z.string()),
  secret: z.array(z.string()),
  detailed: z.array(pluginListingEntry),
});

export const sysPluginEntryData = z.object({
  name: z.string(),
  version: z.string(),
  sha256: z.string(),
  command: z.string(),
  args: z.array(z.string()),
  builtin: z.boolean(),
  deprecation_status: z.string().optional(),
});
export type SysPluginEntryData = z.input<typeof sysPluginEntryData>;

export const pluginCatalogContracts = {
  pluginCatalog: engineContract('core.sys.plugins.catalog', { data: sysPluginCatalogData }),
  pluginList: engineContract('core.sys.plugins.list', {
    params: typeParams,
    data: z.object({ keys: z.array(z.string()) }),
  }),
  pluginRegister: engineContract('core.sys.plugins.register', {
    params: entryParams,
    body: sysPluginRegisterBody,
    data: z.object({}),
  }),
  pluginRead: engineContract('core.sys.plugins.read', {
    params: entryParams,
    query: sysPluginVersionQuery,
    data: sysPluginEntryData,
  }),
  pluginRemove: engineContract('core.sys.plugins.remove', {
    params: entryParams,
    query: sysPluginVersionQuery,
    data: z.object({}),
  }),
} as const;

const p = pluginCatalogContracts;

export const pluginCatalogRouteDefs: RouteDef[] = [
  {
    pattern: 'plugins/catalog',
    restricted: true,
    synopsis: 'Lists the plugins in the catalog by type.',
    description:
      'Names by type (auth, database, secret) and the detailed listing with versions and builtin flags.',
    operations: { read: { contract: p.pluginCatalog, summary: 'Lists the catalog.' } },
  },
  {
    pattern: 'plugins/catalog/:type',
    restricted: true,
    synopsis: 'Lists the plugins of one type.',
    description: 'The names of the builtin and registered plugins of the type.',
    operations: { list: { contract: p.pluginList, summary: 'Lists plugins of a type.' } },
  },
  {
    pattern: 'plugins/catalog/:type/:name',
    restricted: true,
    synopsis: 'Registers, reads or removes a plugin.',
    description:
      'sha256 (hex) is checked against the binary before every start; command is relative to the plugin directory. Registering an existing name and version updates it. Requires sudo.',
    sudo: true,
    operations: {
      read: { contract: p.pluginRead, summary: 'Reads a plugin entry.' },
      update: { contract: p.pluginRegister, summary: 'Registers a plugin.' },
      create: { contract: p.pluginRegister, summary: 'Registers a plugin.' },
      delete: { contract: p.pluginRemove, summary: 'Removes a plugin entry.' },
    },
  },
];
