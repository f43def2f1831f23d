import { Inject, Injectable } from '@nestjs/common';
import type { ServiceRuntime } from '@coffer/event-store';
import { DrStandby } from '@coffer/scheduling';
import { OIDC_RUNTIME } from '../oidc.di';
import { decideKey } from './oidc-config.decider';
import {
  ALLOW_ALL_ASSIGNMENT,
  DEFAULT_KEY_NAME,
  DEFAULT_PROVIDER_NAME,
  allowAllAssignment,
  defaultProvider,
} from './oidc-config.state';
import { OidcResources } from './oidc-resources';

/**
 * Vault's built-in resources of every namespace: the `default` provider (all clients, no
 * scopes), the `default` key (RS256, 24h, all clients) and the `allow_all` assignment. Created
 * on the namespace's first OIDC request; they cannot be deleted, so one check per replica and
 * namespace is enough. A secondary creates none: it serves the primary's, replayed (a default key
 * of its own would sign tokens the primary's JWKS does not verify); once promoted it does.
 */
@Injectable()
export class OidcDefaults {
  readonly #ensured = new Set<string>();

  constructor(
    private readonly resources: OidcResources,
    private readonly standby: DrStandby,
    @Inject(OIDC_RUNTIME) private readonly runtime: Pick<ServiceRuntime, 'clock'>,
  ) {}

  async ensure(namespace: string): Promise<void> {
    if (this.#ensured.has(namespace)) return;
    if (await this.standby.replicating()) return;
    await this.resources.createIfAbsent({ namespace, kind: 'provider', name: DEFAULT_PROVIDER_NAME }, () => ({
      type: 'OidcProviderWritten',
      data: { provider: defaultProvider() },
    }));
    await this.resources.createIfAbsent(
      { namespace, kind: 'assignment', name: ALLOW_ALL_ASSIGNMENT },
      () => ({
        type: 'OidcAssignmentWritten',
        data: { assignment: allowAllAssignment() },
      }),
    );
    await this.resources.createIfAbsent({ namespace, kind: 'key', name: DEFAULT_KEY_NAME }, () => {
      const decision = decideKey(
        undefined,
        { allowed_client_ids: ['*'] },
        this.runtime.clock().getTime(),
        [],
      );
      if (!decision.ok) throw new Error(decision.error);
      return { type: 'OidcKeyWritten', data: { key: decision.state } };
    });
    this.#ensured.add(namespace);
  }

  /** After a replay or a wipe changed the read model: checked again at the next request. */
  forget(): void {
    this.#ensured.clear();
  }
}
