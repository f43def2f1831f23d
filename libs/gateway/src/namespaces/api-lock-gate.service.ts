import { Inject, Injectable } from '@nestjs/common';
import { coreNamespaceLocks, DomainError, NAMESPACE_UNLOCK_SUBJECT } from '@coffer/contracts';
import { CachedValue, type Transport } from '@coffer/transport';
import {
  CORE_LOOKUP_TIMEOUT_MS,
  GATEWAY_OPTIONS,
  GATEWAY_TRANSPORT,
  resolveCacheOptions,
  type GatewayOptions,
} from '../gateway.options';
import type { Routing } from '../routing/route-resolver';

/**
 * The request's namespace is under an API-locked one: the topmost locked namespace at or above
 * it, or undefined. Exempt are the unauthenticated routes (health, seal status, ...), those
 * served sealed, and the unlock route itself (Vault's exempt paths).
 */
export function lockedBy(locked: readonly string[], routing: Routing, fullPath: string): string | undefined {
  if (locked.length === 0) return undefined;
  if (routing.kind === 'route') {
    const route = routing.route;
    if (route.unauthenticated === true || route.allowSealed === true) return undefined;
    if (Object.values(route.operations).some((op) => op?.contract.subject === NAMESPACE_UNLOCK_SUBJECT))
      return undefined;
  }
  const namespace = routing.kind === 'failed' ? fullPath : routing.match.mount.namespace;
  return [...locked].sort((a, b) => a.length - b.length).find((l) => namespace.startsWith(l));
}

export function namespaceLockedError(path: string): DomainError {
  return new DomainError(
    'service_unavailable',
    `API access to this namespace has been locked by an administrator - ${JSON.stringify(path.replace(/\/$/, ''))} must be unlocked to gain access.`,
  );
}

/** The API-locked namespaces, re-read with the mount table (the "mounts" invalidation). */
@Injectable()
export class ApiLockGate {
  private readonly locked: CachedValue<string[]>;

  constructor(
    @Inject(GATEWAY_TRANSPORT) transport: Transport,
    @Inject(GATEWAY_OPTIONS) options: GatewayOptions,
  ) {
    this.locked = new CachedValue(async () => {
      const answer = await transport.request(coreNamespaceLocks, {}, { timeoutMs: CORE_LOOKUP_TIMEOUT_MS });
      return answer.locked;
    }, resolveCacheOptions(options.cache).maxAgeMs);
  }

  /** 503 for a request into a locked namespace (Vault's API locked response). */
  async assertOpen(routing: Routing, fullPath: string): Promise<void> {
    const by = lockedBy(await this.locked.get(), routing, fullPath);
    if (by !== undefined) throw namespaceLockedError(by);
  }

  invalidate(): void {
    this.locked.invalidate();
  }
}
