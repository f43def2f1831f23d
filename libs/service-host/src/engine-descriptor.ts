import { isPluginMount, pluginRouteTable } from '@coffer/contracts/plugins';
import type { DynamicModule } from '@nestjs/common';
import type { MountableKind, MountCatalogue, MountInfo, MountTypeEntry, RouteTable } from '@coffer/contracts';
import type { ServiceRuntime } from '@coffer/event-store';
import type { Migration } from 'kysely';

/** What the process hosting an engine hands its Nest module besides the runtime. */
export interface EngineHost {
  /** unique id of this process, e.g. "kv-host-1234" */
  instanceId: string;
  /** authenticates keyring requests between engines and core-sys */
  clusterSecret: string;
  /** advertised API address, e.g. "http://127.0.0.1:8200" */
  apiAddr: string;
  /** replication's cluster listener: where it binds and the address secondaries are given */
  cluster?: { listen: string; advertise: string };
  /** set in dev mode only (one process, `npm start`) */
  dev?: { rootTokenId?: string };
  /** every mountable type of the product (`MOUNT_CATALOGUE` of `@coffer/engines`): core-sys enables only these */
  mountCatalogue: MountCatalogue;
  /** where external plugin commands live (server config `plugin_directory`); none: no plugins run */
  pluginDirectory?: string;
  /**
   * How plugin processes reach the cluster: over the host's stdio (dev mode) or as services of
   * their own on NATS (cluster mode).
   */
  pluginTransport?: { kind: 'stdio' } | { kind: 'nats'; servers: string; subjectPrefix: string };
}

/** A mount that dev mode enables at first start, like Vault's `secret/` (kv v2). */
export interface DevMount {
  /** mount path without the trailing slash, e.g. "secret" */
  path: string;
  type: string;
  options?: Record<string, string>;
  description: string;
}

/** Picks the route table of a mount of one type from its options (kv: version "1" or "2"). */
export type RouteTableSelector = (options: Record<string, string>) => RouteTable;

/**
 * One mount type an engine serves. `secret` types are enabled through sys/mounts, `auth` types
 * through sys/auth; `builtin` ones (sys/, auth/token/, identity/) exist in every mount table and
 * are not mountable.
 */
export interface MountTypeDeclaration {
  kind: MountableKind | 'builtin';
  routes: RouteTableSelector;
}

/**
 * One engine service, declared once in its feature lib (`libs/<name>/src/<name>.engine.ts`) and
 * listed once in `@coffer/engines`. Dev mode, the cluster apps, the cluster launcher, the gateway's
 * routing, bootstrap readiness and the Kubernetes manifests all derive from it.
 */
export interface EngineDescriptor {
  /** service name: NATS queue group, app folder `apps/<name>`, Deployment `coffer-<name>` */
  name: string;
  /** one line for people: what the service serves */
  summary: string;
  /** the service's own Postgres schema and its migrations */
  schema: string;
  migrations: Record<string, Migration>;
  /**
   * "barrier": this service owns the barrier (core-sys: unseal loads it);
   * "keyring": the barrier is fetched from core-sys with the cluster secret (engines).
   */
  cipher: 'barrier' | 'keyring';
  /** the service's Nest module */
  module: (runtime: ServiceRuntime, host: EngineHost) => DynamicModule;
  /**
   * Mount types this service serves, each with its kind and the route table of a mount of that
   * type. The one place a mount type is declared: core-sys's catalogue and the gateway's routing
   * derive from it.
   */
  mountTypes: Record<string, MountTypeDeclaration>;
  /**
   * Routes this service serves inside a mount type another engine owns, by mount type (the oidc
   * service's `identity/oidc/*` under core-sys's builtin `identity/`). The owner's table and
   * these are merged into one table (`routeTableResolver`); each added route names this service
   * (`RouteDef.service`), so the transport's subject and the gateway's errors name it.
   */
  routeExtensions?: Record<string, () => RouteTable>;
  /** mounts dev mode enables at first start */
  devMounts: readonly DevMount[];
  /**
   * A GET under /v1/ (with the root token) that answers 200 or 404 once a replica serves, and 503
   * while it is sealed (has no keyring): bootstrap polls it after unseal.
   */
  readinessPath: string;
  /** Kubernetes: replicas, and a CPU autoscaler when the service is stateless */
  deploy: { replicas: number; autoscale?: { minReplicas: number; maxReplicas: number } };
}

/** Declares an engine (keeps the literal type for `ENGINES`, checks the shape). */
export function defineEngine<const T extends EngineDescriptor>(descriptor: T): T {
  return descriptor;
}

/**
 * The gateway's route-table lookup: every mount type of every engine in the list, with the routes
 * other engines add to it (`routeExtensions`) merged into the owner's table.
 */
export function routeTableResolver(
  engines: readonly EngineDescriptor[],
): (mount: Pick<MountInfo, 'type' | 'options'>) => RouteTable | undefined {
  const byType = new Map<string, RouteTableSelector>();
  for (const engine of engines) {
    for (const [type, declared] of Object.entries(engine.mountTypes)) {
      if (byType.has(type)) throw new Error(`mount type "${type}" is served by two engines`);
      byType.set(type, declared.routes);
    }
  }
  const extensions = new Map<string, (() => RouteTable)[]>();
  for (const engine of engines) {
    for (const [type, table] of Object.entries(engine.routeExtensions ?? {})) {
      if (!byType.has(type))
        throw new Error(`engine "${engine.name}" extends mount type "${type}", which no engine serves`);
      extensions.set(type, [...(extensions.get(type) ?? []), table]);
    }
  }
  // one merged table per owner table, so that matchRoute's compiled patterns are cached
  const merged = new WeakMap<RouteTable, RouteTable>();
  return (mount) => {
    const owner = byType.get(mount.type)?.(mount.options);
    // A type no engine declares is an external plugin's when core-sys marked the mount as one.
    if (!owner) return isPluginMount(mount) ? pluginRouteTable(mount.type) : undefined;
    const added = extensions.get(mount.type);
    if (!added) return owner;
    let table = merged.get(owner);
    if (!table) {
      table = mergeRouteTables(
        owner,
        added.map((extension) => extension()),
      );
      merged.set(owner, table);
    }
    return table;
  };
}

/**
 * The owner's table with the routes of its extensions, each naming the service that serves it.
 * A pattern declared twice is a programming error.
 */
export function mergeRouteTables(owner: RouteTable, extensions: readonly RouteTable[]): RouteTable {
  const patterns = new Set(owner.routes.map((route) => route.pattern));
  const routes = [...owner.routes];
  for (const extension of extensions) {
    for (const route of extension.routes) {
      if (patterns.has(route.pattern))
        throw new Error(`route "${route.pattern}" of mount type "${owner.engine}" is declared twice`);
      patterns.add(route.pattern);
      routes.push({ ...route, service: extension.service });
    }
  }
  return { ...owner, help: [owner.help, ...extensions.map((e) => e.help)].join('\n\n'), routes };
}

/**
 * The mountable types of a list of engines: every secret and auth type each engine declares,
 * served by that engine, plus the planned types no engine declares yet (an engine's own
 * declaration wins over a planned entry of the same type).
 */
export function mountCatalogueOf(
  engines: readonly EngineDescriptor[],
  planned: readonly MountTypeEntry[],
): MountCatalogue {
  const catalogue = new Map<string, MountTypeEntry>();
  const declared = new Set<string>();
  for (const engine of engines) {
    for (const [type, { kind }] of Object.entries(engine.mountTypes)) {
      if (declared.has(type)) throw new Error(`mount type "${type}" is served by two engines`);
      declared.add(type);
      if (kind !== 'builtin') catalogue.set(type, { type, kind, service: engine.name });
    }
  }
  for (const entry of planned) if (!declared.has(entry.type)) catalogue.set(entry.type, entry);
  return catalogue;
}
