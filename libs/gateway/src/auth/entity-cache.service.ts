import { Inject, Injectable } from '@nestjs/common';
import { coreEntityFacts, type EntityFacts } from '@coffer/contracts';
import type { Transport } from '@coffer/transport';
import { KeyedCache } from '../cache/keyed-cache';
import {
  CORE_LOOKUP_TIMEOUT_MS,
  GATEWAY_OPTIONS,
  GATEWAY_TRANSPORT,
  resolveCacheOptions,
  type GatewayOptions,
} from '../gateway.options';

/** Entity facts for templated policies, cached per entity and dropped on the "entity" invalidation. */
@Injectable()
export class EntityCache {
  private readonly cache: KeyedCache<string, EntityFacts | null>;
  private readonly maxAgeMs: number;

  constructor(
    @Inject(GATEWAY_TRANSPORT) private readonly transport: Transport,
    @Inject(GATEWAY_OPTIONS) options: GatewayOptions,
  ) {
    const config = resolveCacheOptions(options.cache);
    this.cache = new KeyedCache(config.maxEntries);
    this.maxAgeMs = config.maxAgeMs;
  }

  facts(entityId: string): Promise<EntityFacts | null> {
    return this.cache.get(
      entityId,
      () => this.transport.request(coreEntityFacts, { entityId }, { timeoutMs: CORE_LOOKUP_TIMEOUT_MS }),
      () => this.maxAgeMs,
    );
  }

  invalidate(entityIds: readonly string[]): void {
    if (entityIds.length === 0) {
      this.cache.clear();
      return;
    }
    this.cache.cancelLoads();
    for (const id of entityIds) this.cache.delete(id);
  }
}
