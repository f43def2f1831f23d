import { z } from 'zod';
import { defineContract } from '../contract';
import { engineRequestSchema, engineResponseSchema, type Operation } from '../engine-messages';
import { engineContract, type RouteTable } from '../routes';

/**
 * External plugins (secrets engines run as processes of their own, registered in the plugin
 * catalog). The gateway routes every request of a plugin mount to one subject per plugin,
 * `plugin-<name>.request`, with the generic EngineRequest; the plugin (its SDK) matches its own
 * routes and parses the request with its own schemas. (The subject is `plugin-<name>.request`.) A mount is a plugin mount when its options
 * carry `plugin_version` (set by core-sys when it enables one).
 */

export const PLUGIN_VERSION_OPTION = 'plugin_version';

/**
 * sys/history/state asks a plugin's read or LIST at a past instant with this header (the core_sys
 * WAL index) and with the storage mount `pluginHistoryMount(uuid, wal)`, which the host answers
 * from its log as of then, read-only. The SDK serves it only on routes declared `history: true`.
 */
export const PLUGIN_HISTORY_HEADER = 'x-coffer-history-wal';
export const pluginHistoryMount = (uuid: string, wal: number): string => `${uuid}@${wal}`;
/** The mount uuid and WAL index of a storage mount of a past instant; undefined for a live one. */
export function parsePluginHistoryMount(mount: string): { uuid: string; wal: number } | undefined {
  const m = /^(.+)@([0-9]{1,15})$/.exec(mount);
  return m?.[1] !== undefined && m[2] !== undefined ? { uuid: m[1], wal: Number(m[2]) } : undefined;
}

/** The queue group of a plugin's processes in cluster mode. */
export const pluginQueue = (name: string): string => `plugin-${name}`;

const OPERATIONS: Operation[] = ['read', 'list', 'create', 'update', 'patch', 'delete'];

const tables = new Map<string, RouteTable>();

/** The one contract a plugin serves: any EngineRequest, any EngineResponse. */
export const pluginRequestContract = (name: string) => engineContract(`${pluginQueue(name)}.request`);

/** The gateway's route table of a plugin mount: every path and operation to the plugin's subject. */
export function pluginRouteTable(name: string): RouteTable {
  let table = tables.get(name);
  if (table) return table;
  const contract = pluginRequestContract(name);
  const operations = Object.fromEntries(
    OPERATIONS.map((op) => [op, { contract, summary: `Served by the ${name} plugin.` }]),
  );
  table = {
    engine: name,
    service: pluginQueue(name),
    help: `The external plugin "${name}" (registered in sys/plugins/catalog).`,
    routes: [{ pattern: ':path*?', synopsis: `Paths of the ${name} plugin.`, operations }],
  };
  tables.set(name, table);
  return table;
}

export const isPluginMount = (mount: { options: Record<string, string> }): boolean =>
  mount.options[PLUGIN_VERSION_OPTION] !== undefined;

/** Storage a plugin keeps per mount, behind core-sys's barrier. */
export const pluginStorageRequestSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('get'), key: z.string() }),
  z.object({ op: z.literal('put'), key: z.string(), value: z.string() }),
  z.object({ op: z.literal('delete'), key: z.string() }),
  z.object({ op: z.literal('list'), prefix: z.string() }),
]);
export type PluginStorageRequest = z.infer<typeof pluginStorageRequestSchema>;

export const pluginStorageResultSchema = z.object({
  value: z.string().nullable().default(null),
  keys: z.array(z.string()).default([]),
});
export type PluginStorageResult = z.infer<typeof pluginStorageResultSchema>;

/**
 * A plugin's storage call (cluster mode: over NATS to core-sys; dev mode: the host relays it):
 * authenticated by the plugin's secret (HMAC of the cluster secret and the plugin name).
 */
export const corePluginStorage = defineContract(
  'core.plugins.storage',
  z.object({
    plugin: z.string(),
    secret: z.string(),
    mount: z.string(),
    request: pluginStorageRequestSchema,
  }),
  pluginStorageResultSchema,
);

/** The stdio wire protocol between the host and a plugin process (one JSON object per line). */
export const pluginWireMessageSchema = z.discriminatedUnion('kind', [
  /** host → plugin: serve this request */
  z.object({ kind: z.literal('request'), id: z.number().int(), request: engineRequestSchema.loose() }),
  /** plugin → host: the answer */
  z.object({
    kind: z.literal('response'),
    id: z.number().int(),
    response: engineResponseSchema.loose().optional(),
    error: z.object({ code: z.string(), message: z.string() }).optional(),
  }),
  /** plugin → host: a storage call */
  z.object({
    kind: z.literal('storage'),
    id: z.number().int(),
    mount: z.string(),
    request: pluginStorageRequestSchema,
  }),
  /** host → plugin: the storage answer */
  z.object({
    kind: z.literal('storage-result'),
    id: z.number().int(),
    result: pluginStorageResultSchema.optional(),
    error: z.object({ code: z.string(), message: z.string() }).optional(),
  }),
  /** plugin → host: ready to serve */
  z.object({ kind: z.literal('ready') }),
]);
export type PluginWireMessage = z.infer<typeof pluginWireMessageSchema>;

/** Environment variables the host starts a plugin with. */
export const PLUGIN_ENV = {
  name: 'COFFER_PLUGIN_NAME',
  transport: 'COFFER_PLUGIN_TRANSPORT',
  natsServers: 'COFFER_PLUGIN_NATS_SERVERS',
  subjectPrefix: 'COFFER_PLUGIN_SUBJECT_PREFIX',
  secret: 'COFFER_PLUGIN_SECRET',
} as const;
