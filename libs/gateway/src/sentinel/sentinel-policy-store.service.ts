import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import {
  coreSentinelPolicies,
  coreSentinelTokenFacts,
  invalidation,
  type SentinelEnforcementLevel,
  type SentinelPolicyEntry,
  type SentinelTokenFacts,
} from '@coffer/contracts';
import { compileSentinel, type CompiledPolicy } from '@coffer/sentinel';
import { CachedValue, type Subscription, type Transport } from '@coffer/transport';
import { KeyedCache } from '../cache/keyed-cache';
import type { GatewayLogger } from '../gateway.logger';
import {
  CORE_LOOKUP_TIMEOUT_MS,
  GATEWAY_LOGGER,
  GATEWAY_OPTIONS,
  GATEWAY_TRANSPORT,
  resolveCacheOptions,
  type GatewayOptions,
} from '../gateway.options';

export interface LoadedPolicy {
  kind: 'rgp' | 'egp';
  /** the name in its namespace */
  name: string;
  /** the namespace the policy belongs to ("" root, "ns1/"): it governs requests there and below */
  namespace: string;
  level: SentinelEnforcementLevel;
  paths: string[];
  /** undefined when the stored text no longer parses: the policy then fails (never passes) */
  compiled: CompiledPolicy | undefined;
  error?: string;
}

export interface GoverningPolicies {
  /** by qualified name ("<namespace><name>"), as a token's qualified policy names */
  rgps: ReadonlyMap<string, LoadedPolicy>;
  egps: readonly LoadedPolicy[];
}

const NONE: GoverningPolicies = { rgps: new Map(), egps: [] };

/**
 * Every RGP and EGP, fetched from core-sys in one request and kept until a "policy"
 * invalidation (core-sys broadcasts it before answering the write, so each replica reloads on its
 * next request). Compiled policies are kept per (kind, name, stream version): a reload compiles
 * only what changed. Token facts (`token.*` beyond what the resolved token carries) are cached
 * per token and dropped on "token" invalidations.
 */
@Injectable()
export class SentinelPolicyStore implements OnModuleInit, OnModuleDestroy {
  private readonly policies: CachedValue<GoverningPolicies>;
  private compiled = new Map<string, LoadedPolicy>();
  private readonly tokenFacts: KeyedCache<string, SentinelTokenFacts | null>;
  private readonly maxAgeMs: number;
  private subscription: Subscription | undefined;

  constructor(
    @Inject(GATEWAY_TRANSPORT) private readonly transport: Transport,
    @Inject(GATEWAY_OPTIONS) options: GatewayOptions,
    @Inject(GATEWAY_LOGGER) private readonly logger: GatewayLogger,
  ) {
    const config = resolveCacheOptions(options.cache);
    this.maxAgeMs = config.maxAgeMs;
    this.policies = new CachedValue(() => this.load(), config.maxAgeMs);
    this.tokenFacts = new KeyedCache(config.maxEntries);
  }

  onModuleInit(): void {
    this.subscription = this.transport.subscribe(invalidation, (event) => {
      if (event.kind === 'policy' || event.kind === 'seal') this.policies.invalidate();
      if (event.kind === 'token' || event.kind === 'seal') this.tokenFacts.clear();
    });
  }

  onModuleDestroy(): void {
    this.subscription?.unsubscribe();
    this.subscription = undefined;
  }

  get(): Promise<GoverningPolicies> {
    return this.policies.get();
  }

  facts(tokenRef: string): Promise<SentinelTokenFacts | null> {
    return this.tokenFacts.get(
      tokenRef,
      () =>
        this.transport.request(coreSentinelTokenFacts, { tokenRef }, { timeoutMs: CORE_LOOKUP_TIMEOUT_MS }),
      () => this.maxAgeMs,
    );
  }

  private async load(): Promise<GoverningPolicies> {
    const { policies } = await this.transport.request(
      coreSentinelPolicies,
      {},
      { timeoutMs: CORE_LOOKUP_TIMEOUT_MS },
    );
    if (policies.length === 0) {
      this.compiled = new Map();
      return NONE;
    }
    const next = new Map<string, LoadedPolicy>();
    const rgps = new Map<string, LoadedPolicy>();
    const egps: LoadedPolicy[] = [];
    for (const entry of policies) {
      const key = `${entry.kind}\0${entry.name}\0${entry.version}`;
      const loaded = this.compiled.get(key) ?? this.compile(entry);
      next.set(key, loaded);
      if (loaded.kind === 'rgp') rgps.set(entry.name, loaded);
      else egps.push(loaded);
    }
    this.compiled = next;
    return { rgps, egps };
  }

  private compile(entry: SentinelPolicyEntry): LoadedPolicy {
    // stored as "<namespace><name>" (names have no "/")
    const cut = entry.name.lastIndexOf('/') + 1;
    const base = {
      kind: entry.kind,
      name: entry.name.slice(cut),
      namespace: entry.name.slice(0, cut),
      level: entry.enforcement_level,
      paths: entry.paths,
    };
    try {
      return { ...base, compiled: compileSentinel(entry.policy) };
    } catch (error) {
      // validated when written: failing now means a parser change; the policy fails closed
      const reason = (error as Error).message;
      this.logger.warn(`${entry.kind} "${entry.name}" does not parse and fails every request: ${reason}`);
      return { ...base, compiled: undefined, error: `policy does not parse: ${reason}` };
    }
  }
}
