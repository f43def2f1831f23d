import { Inject, Injectable } from '@nestjs/common';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { DomainError } from '@coffer/contracts';
import {
  parsePluginHistoryMount,
  type PluginStorageRequest,
  type PluginStorageResult,
} from '@coffer/contracts/plugins';
import { CORE_SYS_OPTIONS, type CoreSysOptions } from '../core-sys.di';
import { PluginHistory } from '../history/plugin-history.service';
import { SealService } from '../seal/seal.service';
import { storageValueAad, PluginStorageEventLog } from './plugin.projection';
import { PluginStorageRepository } from './plugin-storage.repository';

/**
 * External plugins' storage: the plugin names its mount and a key; the value is kept behind the
 * barrier. A plugin process proves who it is with the secret its host started it with (derived
 * from the cluster secret, so any core-sys replica can check it).
 */
@Injectable()
export class PluginStorageService {
  constructor(
    @Inject(CORE_SYS_OPTIONS) private readonly options: Pick<CoreSysOptions, 'clusterSecret'>,
    private readonly seal: SealService,
    private readonly repo: PluginStorageRepository,
    private readonly log: PluginStorageEventLog,
    private readonly history: PluginHistory,
  ) {}

  /** The secret a plugin process of `plugin` is started with. */
  secretFor(plugin: string): string {
    return createHmac('sha256', this.options.clusterSecret)
      .update(`coffer plugin ${plugin}`)
      .digest('base64url');
  }

  async call(
    plugin: string,
    secret: string,
    mount: string,
    request: PluginStorageRequest,
  ): Promise<PluginStorageResult> {
    const expected = Buffer.from(this.secretFor(plugin));
    const given = Buffer.from(secret);
    if (expected.length !== given.length || !timingSafeEqual(expected, given))
      throw new DomainError('permission_denied', 'permission denied');
    return this.serve(plugin, mount, request);
  }

  /** A storage call from a plugin process the host itself runs (dev mode's stdio). */
  async serve(plugin: string, mount: string, request: PluginStorageRequest): Promise<PluginStorageResult> {
    this.seal.assertUnsealed();
    // a read sys/history/state asked at a past instant: the values then, read-only
    const past = parsePluginHistoryMount(mount);
    if (past) return this.history.storageAt(plugin, past.uuid, past.wal, request);
    switch (request.op) {
      case 'get': {
        const k = { plugin, mount, key: request.key };
        const blob = await this.repo.get(k);
        return {
          value: blob ? this.seal.barrier.decrypt(blob, storageValueAad(k)).toString('utf8') : null,
          keys: [],
        };
      }
      case 'put':
        await this.log.append({ plugin, mount, key: request.key }, 'any', [
          { type: 'PluginValuePut', data: { plugin, mount, key: request.key, value: request.value } },
        ]);
        return { value: null, keys: [] };
      case 'delete':
        if (await this.repo.get({ plugin, mount, key: request.key }))
          await this.log.append({ plugin, mount, key: request.key }, 'any', [
            { type: 'PluginValueDeleted', data: { plugin, mount, key: request.key } },
          ]);
        return { value: null, keys: [] };
      case 'list': {
        const keys = new Set<string>();
        for (const key of await this.repo.keys(plugin, mount, request.prefix)) {
          const rest = key.slice(request.prefix.length);
          const slash = rest.indexOf('/');
          keys.add(slash < 0 ? rest : rest.slice(0, slash + 1));
        }
        return { value: null, keys: [...keys].sort() };
      }
    }
  }

  /** A disabled mount's plugin data goes with it (mountDisabled broadcast). */
  async purgeMount(mount: string): Promise<void> {
    for (const k of await this.repo.mountKeys(mount)) {
      await this.log.append(k, 'any', [{ type: 'PluginValueDeleted', data: k }]);
    }
  }
}
