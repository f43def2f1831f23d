import { Inject, Injectable } from '@nestjs/common';
import {
  notFound,
  type pluginCatalogContracts,
  invalidRequest,
  type CallerContext,
  type MountTypeEntry,
  type PluginType,
  type RequestOf,
  type ResponseOf,
} from '@coffer/contracts';
import { pluginQueue } from '@coffer/contracts/plugins';
import { CORE_SYS_OPTIONS, type CoreSysOptions } from '../core-sys.di';
import { SealService } from '../seal/seal.service';
import { SERVICE_VERSION } from '../seal/version';
import {
  builtinPlugins,
  catalogListing,
  decidePluginRegistration,
  parsePluginType,
  pickPluginEntry,
  type BuiltinPlugin,
  type PluginEntry,
} from './plugin-catalog.decider';
import { CATALOG_ENTRY_AAD, PluginCatalogEventLog } from './plugin.projection';
import { PluginCatalogRepository, type StoredPlugin } from './plugin-catalog.repository';
import { verifyPluginBinary } from './plugin-binary';

type C = typeof pluginCatalogContracts;

/** The plugin catalog use cases (root and administrative namespace only, enforced by the gateway). */
@Injectable()
export class PluginCatalogService {
  readonly #builtins: BuiltinPlugin[];

  constructor(
    @Inject(CORE_SYS_OPTIONS) private readonly options: CoreSysOptions,
    private readonly seal: SealService,
    private readonly repo: PluginCatalogRepository,
    private readonly log: PluginCatalogEventLog,
  ) {
    this.#builtins = builtinPlugins(options.mountCatalogue, SERVICE_VERSION);
  }

  // Restricted routes: the gateway serves them only in the root and the administrative
  // namespace (RouteDef.restricted); elsewhere the path does not exist, as in Vault.
  #guard(_caller: CallerContext): void {
    this.seal.assertUnsealed();
  }

  #open(stored: StoredPlugin): PluginEntry {
    const json = this.seal.barrier.decrypt(stored.entry, CATALOG_ENTRY_AAD).toString('utf8');
    return JSON.parse(json) as PluginEntry;
  }

  async catalog(caller: CallerContext): Promise<ResponseOf<C['pluginCatalog']>> {
    this.#guard(caller);
    const registered = (await this.repo.all()).map((s) => this.#open(s));
    return { data: catalogListing(this.#builtins, registered) };
  }

  async list(req: RequestOf<C['pluginList']>, caller: CallerContext): Promise<ResponseOf<C['pluginList']>> {
    this.#guard(caller);
    const type = parsePluginType(req.params.type.replace(/\/$/, ''));
    const listing = catalogListing(
      this.#builtins,
      (await this.repo.all()).map((s) => this.#open(s)),
    );
    return { data: { keys: listing[type] } };
  }

  async register(
    req: RequestOf<C['pluginRegister']>,
    caller: CallerContext,
  ): Promise<ResponseOf<C['pluginRegister']>> {
    this.#guard(caller);
    const entry = decidePluginRegistration(
      req.params.type,
      req.params.name,
      req.body,
      this.options.pluginDirectory,
    );
    await this.log.append(entry, 'any', [{ type: 'PluginRegistered', data: entry }]);
    return { data: null };
  }

  async read(req: RequestOf<C['pluginRead']>, caller: CallerContext): Promise<ResponseOf<C['pluginRead']>> {
    this.#guard(caller);
    const type = parsePluginType(req.params.type);
    const registered = (await this.repo.named(type, req.params.name)).map((s) => this.#open(s));
    const builtin = this.#builtins.find((b) => b.type === type && b.name === req.params.name);
    const entry = pickPluginEntry(builtin, registered, req.query.version);
    if (!entry) throw notFound();
    return { data: entry };
  }

  /**
   * The registered entry a mount of `name` runs: the given version, else the unversioned entry,
   * else the newest version; undefined when the catalog has none.
   */
  async resolve(
    type: PluginType,
    name: string,
    version: string | undefined,
  ): Promise<PluginEntry | undefined> {
    const registered = (await this.repo.named(type, name)).map((s) => this.#open(s));
    if (version !== undefined && version !== '') {
      const wanted = version.startsWith('v') ? version : `v${version}`;
      return registered.find((r) => r.version === version || r.version === wanted);
    }
    return registered.find((r) => r.version === '') ?? registered.sort(byVersion).at(-1);
  }

  /**
   * sys/mounts with a type no engine serves: a registered secret plugin of that name whose binary
   * passes the SHA-256 check (else 400, and the binary never ran), or undefined.
   */
  async prepareMount(
    type: string,
    version: string | undefined,
  ): Promise<{ entry: MountTypeEntry; version: string } | undefined> {
    this.seal.assertUnsealed();
    const plugin = await this.resolve('secret', type, version);
    if (!plugin) {
      if (version) throw invalidRequest(`plugin "${type}" version ${version} is not in the catalog`);
      return undefined;
    }
    await verifyPluginBinary(this.options.pluginDirectory, plugin);
    return { entry: { type, kind: 'secret', service: pluginQueue(type) }, version: plugin.version };
  }

  async remove(
    req: RequestOf<C['pluginRemove']>,
    caller: CallerContext,
  ): Promise<ResponseOf<C['pluginRemove']>> {
    this.#guard(caller);
    const type = parsePluginType(req.params.type);
    const key = { type, name: req.params.name, version: req.query.version ?? '' };
    if (await this.repo.exists(key.type, key.name, key.version))
      await this.log.append(key, 'any', [{ type: 'PluginRemoved', data: key }]);
    return { data: null };
  }
}

/** Orders versions numerically (v1.10.0 after v1.9.0). */
function byVersion(a: PluginEntry, b: PluginEntry): number {
  const parts = (v: string) =>
    v
      .replace(/^v/, '')
      .split(/[.+-]/)
      .map((p) => Number(p) || 0);
  const pa = parts(a.version);
  const pb = parts(b.version);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}
