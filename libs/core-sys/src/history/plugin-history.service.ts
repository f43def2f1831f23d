import { Inject, Injectable } from '@nestjs/common';
import { DomainError, notFound, type EngineRequest } from '@coffer/contracts';
import {
  PLUGIN_HISTORY_HEADER,
  pluginHistoryMount,
  pluginRequestContract,
  type PluginStorageRequest,
  type PluginStorageResult,
} from '@coffer/contracts/plugins';
import type { EventStore, ServiceRuntime } from '@coffer/event-store';
import { CORE_SYS_EVENT_STORE, SERVICE_RUNTIME } from '../core-sys.di';
import { namespaceOf, type MountRecord } from '../mounts/mount.model';
import { PLUGIN_STORAGE_LOG, pluginStorageStream } from '../plugins/plugin.events';

const ASK_TIMEOUT_MS = 10_000;

/**
 * sys/history/state of an external plugin's paths. Plugins keep their values in core-sys's
 * storage (one stream per plugin, mount and key in core-sys's log), and only the plugin knows
 * what its reads show, so the plugin is asked its read or LIST with a storage of the instant:
 * the request carries PLUGIN_HISTORY_HEADER and the storage mount `<uuid>@<wal>`, whose `get`
 * and `list` core-sys answers from its log up to that event (`storageAt`), and whose `put` and
 * `delete` it refuses. The SDK answers it only on routes the plugin declared `history: true`
 * (the TOTP plugin: `keys`, `keys/<name>`, whose read shows no secret), so a route whose read
 * derives something from a secret (a TOTP code) has no history.
 */
@Injectable()
export class PluginHistory {
  constructor(
    @Inject(SERVICE_RUNTIME) private readonly runtime: Pick<ServiceRuntime, 'transport'>,
    @Inject(CORE_SYS_EVENT_STORE) private readonly store: EventStore,
  ) {}

  /** The plugin's read (or LIST) of `path`, inside the mount, as of event `wal`; 404 as its live read. */
  async stateAt(
    mount: MountRecord,
    path: string,
    query: Record<string, string>,
    wal: number,
  ): Promise<Record<string, unknown>> {
    const { list, ...rest } = query;
    const request: EngineRequest = {
      operation: list === 'true' ? 'list' : 'read',
      mount: {
        path: mount.path,
        uuid: pluginHistoryMount(mount.uuid, wal),
        accessor: mount.accessor,
        type: mount.type,
        namespace: namespaceOf(mount),
        options: mount.options,
        config: { default_lease_ttl: mount.config.defaultLeaseTtl, max_lease_ttl: mount.config.maxLeaseTtl },
      },
      path,
      params: {},
      body: {},
      query: rest,
      headers: { [PLUGIN_HISTORY_HEADER]: String(wal) },
    };
    const answer = await this.runtime.transport.request(pluginRequestContract(mount.type), request, {
      timeoutMs: ASK_TIMEOUT_MS,
    });
    if (!answer.data) throw notFound();
    return answer.data;
  }

  /** A storage call of a plugin answering at event `wal` of the log: its values then, read-only. */
  async storageAt(
    plugin: string,
    mount: string,
    wal: number,
    request: PluginStorageRequest,
  ): Promise<PluginStorageResult> {
    switch (request.op) {
      case 'get': {
        let value: string | null = null;
        for (const stored of await this.store.readStream(
          pluginStorageStream({ plugin, mount, key: request.key }),
        )) {
          if (stored.wal > wal) break;
          const event = PLUGIN_STORAGE_LOG.decode(stored);
          value = event.type === 'PluginValuePut' ? event.data.value : null;
        }
        return { value, keys: [] };
      }
      case 'list': {
        // as the live list: keys under the prefix, one folder level (sub-folders end in "/")
        const prefix = pluginStorageStream({ plugin, mount, key: request.prefix });
        const { names } = await this.store.namesAt(
          prefix,
          wal,
          (last) => PLUGIN_STORAGE_LOG.decode(last).type === 'PluginValuePut',
        );
        const keys = new Set(
          names.map((rest) => (rest.includes('/') ? rest.slice(0, rest.indexOf('/') + 1) : rest)),
        );
        return { value: null, keys: [...keys].sort() };
      }
      case 'put':
      case 'delete':
        throw new DomainError('permission_denied', 'the storage of a past instant is read-only');
    }
  }
}
