import { Inject, Injectable } from '@nestjs/common';
import {
  DomainError,
  notFound,
  type pluginCatalogContracts,
  type CallerContext,
  type RequestOf,
  type ResponseOf,
} from '@coffer/contracts';
import type { ServiceRuntime } from '@coffer/event-store';
import { CORE_SYS_OPTIONS, SERVICE_RUNTIME, type CoreSysOptions } from '../core-sys.di';
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
import { PluginCatalogRepository, type StoredPlugin } from './plugin-catalog.repository';

const ENTRY_AAD = Buffer.from('coffer/core-sys/plugin-catalog');
type C = typeof pluginCatalogContracts;

/** The plugin catalog use cases (root namespace only). */
@Injectable()
export class PluginCatalogService {
  readonly #builtins: BuiltinPlugin[];

  constructor(
    @Inject(SERVICE_RUNTIME) private readonly runtime: ServiceRuntime,
    @Inject(CORE_SYS_OPTIONS) private readonly options: CoreSysOptions,
    private readonly seal: SealService,
    private readonly repo: PluginCatalogRepository,
  ) {
    this.#builtins = builtinPlugins(options.mountCatalogue, SERVICE_VERSION);
  }

  #guard(caller: CallerContext): void {
    this.seal.assertUnsealed();
    // Restricted to the root namespace: elsewhere the path does not exist (Vault).
    if (caller.namespace !== '') throw new DomainError('unsupported_path', 'unsupported path');
  }

  #open(stored: StoredPlugin): PluginEntry {
    const json = this.seal.barrier.decrypt(stored.entry, ENTRY_AAD).toString('utf8');
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
    const sealed = this.seal.barrier.encrypt(Buffer.from(JSON.stringify(entry)), ENTRY_AAD);
    await this.repo.upsert(
      { type: entry.type, name: entry.name, version: entry.version, entry: sealed },
      this.runtime.clock(),
    );
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

  async remove(
    req: RequestOf<C['pluginRemove']>,
    caller: CallerContext,
  ): Promise<ResponseOf<C['pluginRemove']>> {
    this.#guard(caller);
    const type = parsePluginType(req.params.type);
    await this.repo.remove(type, req.params.name, req.query.version ?? '');
    return { data: null };
  }
}
