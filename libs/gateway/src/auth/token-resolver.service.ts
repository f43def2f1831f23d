import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { coreTokenResolve, type ResolvedToken } from '@coffer/contracts';
import type { Transport } from '@coffer/transport';
import { KeyedCache } from '../cache/keyed-cache';
import {
  CORE_LOOKUP_TIMEOUT_MS,
  GATEWAY_OPTIONS,
  GATEWAY_TRANSPORT,
  resolveCacheOptions,
  type GatewayOptions,
  type ResolvedCacheOptions,
} from '../gateway.options';

/**
 * Client token -> ResolvedToken via core-sys. Only tokens core-sys marks cacheable (no use count;
 * a use-limited token never is, not even after its last use) are cached, until they expire, for
 * at most maxAgeMs, and dropped on the "token" invalidation (by accessor, or all). Failures are
 * never cached: a revoked token fails on its next request. Cache keys are SHA-256 digests, so the
 * cache never holds tokens themselves.
 */
@Injectable()
export class TokenResolver {
  private readonly cache: KeyedCache<string, ResolvedToken>;
  private readonly keysByAccessor = new Map<string, Set<string>>();
  private readonly config: ResolvedCacheOptions;

  constructor(
    @Inject(GATEWAY_TRANSPORT) private readonly transport: Transport,
    @Inject(GATEWAY_OPTIONS) options: GatewayOptions,
  ) {
    this.config = resolveCacheOptions(options.cache);
    this.cache = new KeyedCache(this.config.maxEntries);
  }

  /**
   * One request's token check. Concurrent requests with the same uncached token share one
   * resolve; when that turns out to be a use-limited token, the requests that merely joined it
   * resolve again on their own, because core-sys counts one use per resolve.
   */
  async resolve(token: string): Promise<ResolvedToken> {
    const key = createHash('sha256').update(token).digest('base64');
    let loadedHere = false;
    const resolved = await this.cache.get(
      key,
      () => {
        loadedHere = true;
        return this.fetch(token, key);
      },
      (value) => this.ttlOf(value),
    );
    if (resolved.cacheable || loadedHere) return resolved;
    return this.fetch(token, key);
  }

  /** "token" invalidation: the listed accessors, or every token when the list is empty. */
  invalidate(accessors: readonly string[]): void {
    if (accessors.length === 0) {
      this.clear();
      return;
    }
    // a resolve in flight may have read the token before it was revoked
    this.cache.cancelLoads();
    for (const accessor of accessors) {
      const keys = this.keysByAccessor.get(accessor);
      this.keysByAccessor.delete(accessor);
      for (const key of keys ?? []) this.cache.delete(key);
    }
  }

  clear(): void {
    this.cache.clear();
    this.keysByAccessor.clear();
  }

  private async fetch(token: string, key: string): Promise<ResolvedToken> {
    const resolved = await this.transport.request(
      coreTokenResolve,
      { token },
      { timeoutMs: CORE_LOOKUP_TIMEOUT_MS },
    );
    if (resolved.cacheable) this.index(resolved.accessor, key);
    return resolved;
  }

  private ttlOf(resolved: ResolvedToken): number {
    if (!resolved.cacheable) return 0;
    const left = resolved.expiresAt === 0 ? Infinity : resolved.expiresAt - Date.now();
    return Math.min(left, this.config.maxAgeMs);
  }

  private index(accessor: string, key: string): void {
    let keys = this.keysByAccessor.get(accessor);
    if (!keys) {
      // Bounded like the cache; every cached token must stay reachable by its accessor, so a full
      // index starts over together with the cache.
      if (this.keysByAccessor.size >= this.config.maxEntries) this.clear();
      keys = new Set();
      this.keysByAccessor.set(accessor, keys);
    }
    keys.add(key);
  }
}
