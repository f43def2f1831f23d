import { Inject, Injectable } from '@nestjs/common';
import { DEFAULT_POLICY, DEFAULT_POLICY_NAME, parsePolicy, type Policy } from '@coffer/acl';
import { corePolicyTexts } from '@coffer/contracts';
import type { Transport } from '@coffer/transport';
import { KeyedCache } from '../cache/keyed-cache';
import { baseName, normaliseQualifiedName } from '../namespaces/namespace-scope';
import type { GatewayLogger } from '../gateway.logger';
import {
  CORE_LOOKUP_TIMEOUT_MS,
  GATEWAY_LOGGER,
  GATEWAY_OPTIONS,
  GATEWAY_TRANSPORT,
  resolveCacheOptions,
  type GatewayOptions,
} from '../gateway.options';

/** null: the policy does not exist (or does not parse), which acts as an empty policy. */
export type MaybePolicy = Policy | null;

/**
 * Parsed policies by name, fetched from core-sys in one request for all missing names and
 * dropped on the "policy" invalidation. Absent policies are cached too (as null), so a token
 * naming a deleted policy does not cost a lookup per request. When core-sys has no text for
 * "default", the built-in default policy applies.
 */
@Injectable()
export class PolicyCache {
  private readonly cache: KeyedCache<string, MaybePolicy>;
  private readonly maxAgeMs: number;

  constructor(
    @Inject(GATEWAY_TRANSPORT) private readonly transport: Transport,
    @Inject(GATEWAY_OPTIONS) options: GatewayOptions,
    @Inject(GATEWAY_LOGGER) private readonly logger: GatewayLogger,
  ) {
    const config = resolveCacheOptions(options.cache);
    this.cache = new KeyedCache(config.maxEntries);
    this.maxAgeMs = config.maxAgeMs;
  }

  async get(names: readonly string[]): Promise<MaybePolicy[]> {
    const result: MaybePolicy[] = [];
    const missing: string[] = [];
    for (const name of names) {
      const hit = this.cache.peek(name);
      if (hit === undefined) missing.push(name);
      result.push(hit ?? null);
    }
    if (missing.length === 0) return result;
    // One request for every missing name, made only if some name is not already being loaded.
    let batch: Promise<Map<string, MaybePolicy>> | undefined;
    const loadBatch = (): Promise<Map<string, MaybePolicy>> => (batch ??= this.fetch(missing));
    const loaded = await Promise.all(
      missing.map((name) =>
        this.cache.get(
          name,
          async () => (await loadBatch()).get(name) ?? null,
          () => this.maxAgeMs,
        ),
      ),
    );
    const byName = new Map(missing.map((name, i) => [name, loaded[i] ?? null]));
    return names.map((name, i) => (byName.has(name) ? (byName.get(name) ?? null) : (result[i] ?? null)));
  }

  /** "policy" invalidation: the named policies, or all when the list is empty. */
  invalidate(names: readonly string[]): void {
    if (names.length === 0) {
      this.cache.clear();
      return;
    }
    this.cache.cancelLoads();
    for (const name of names) this.cache.delete(normaliseQualifiedName(name));
  }

  private async fetch(names: string[]): Promise<Map<string, MaybePolicy>> {
    const { policies } = await this.transport.request(
      corePolicyTexts,
      { names },
      { timeoutMs: CORE_LOOKUP_TIMEOUT_MS },
    );
    const out = new Map<string, MaybePolicy>();
    for (const { name, text } of policies) out.set(normaliseQualifiedName(name), this.parse(name, text));
    // every namespace's "default" ("ns1/default") falls back to the built-in text
    for (const name of names) {
      if (baseName(name) === DEFAULT_POLICY_NAME && !out.has(name))
        out.set(name, this.parse(DEFAULT_POLICY_NAME, DEFAULT_POLICY));
    }
    return out;
  }

  private parse(name: string, text: string): MaybePolicy {
    try {
      return parsePolicy(name, text);
    } catch (error) {
      // A stored policy was validated when written; failing now means a parser change. Acting as
      // an empty policy denies rather than grants.
      this.logger.warn(`policy "${name}" does not parse and acts as empty: ${(error as Error).message}`);
      return null;
    }
  }
}
