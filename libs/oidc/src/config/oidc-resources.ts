import { Injectable } from '@nestjs/common';
import { invalidRequest } from '@coffer/contracts';
import { isConcurrencyError, retryOnConflict } from '@coffer/event-store';
import type { OidcConfigEvent, ResourceRef } from './oidc-config.events';
import { OidcConfigEventLog } from './oidc-config.projection';
import { OidcConfigRepository } from './oidc-config.repository';
import type { ResourceKindName, ResourceStates } from './oidc-config.state';
import type { Decision } from './oidc-config.decider';

/**
 * Reads and writes of configuration resources: read, decide, append at the version read, again
 * on a conflict. Live states only (a deleted resource reads as undefined).
 */
@Injectable()
export class OidcResources {
  constructor(
    readonly repo: OidcConfigRepository,
    private readonly log: OidcConfigEventLog,
  ) {}

  async get<K extends ResourceKindName>(
    namespace: string,
    kind: K,
    name: string,
  ): Promise<ResourceStates[K] | undefined> {
    return (await this.repo.get(namespace, kind, name))?.state ?? undefined;
  }

  /**
   * Writes one resource: `decide` sees its live state (undefined when absent) and answers the
   * events to append, or throws a DomainError. Answers what `decide` answered alongside.
   */
  async write<K extends ResourceKindName, R>(
    ref: ResourceRef & { kind: K },
    decide: (
      current: ResourceStates[K] | undefined,
    ) => { events: OidcConfigEvent[]; result: R } | Promise<{ events: OidcConfigEvent[]; result: R }>,
  ): Promise<R> {
    return retryOnConflict(async () => {
      const stored = await this.repo.get(ref.namespace, ref.kind, ref.name);
      const { events, result } = await decide(stored?.state ?? undefined);
      if (events.length > 0) await this.log.append(ref, stored?.version ?? 0, events);
      return result;
    });
  }

  /**
   * Creates a resource unless it exists (the built-in defaults): a concurrent creation by another
   * replica is as good as this one.
   */
  async createIfAbsent(ref: ResourceRef, create: () => OidcConfigEvent): Promise<void> {
    const stored = await this.repo.get(ref.namespace, ref.kind, ref.name);
    if (stored) return;
    try {
      await this.log.append(ref, 0, [create()]);
    } catch (error) {
      if (!isConcurrencyError(error)) throw error;
    }
  }
}

/** A Decision as the state or a 400 with its text. */
export function decided<S>(decision: Decision<S>): { state: S; warnings: string[] } {
  if (!decision.ok) throw invalidRequest(decision.error);
  return { state: decision.state, warnings: decision.warnings ?? [] };
}
