import { Inject, Injectable } from '@nestjs/common';
import type { OidcDiscovery, PublicJwk } from '@coffer/contracts/oidc';
import type { ServiceRuntime } from '@coffer/event-store';
import { OIDC_OPTIONS, OIDC_RUNTIME, type OidcModuleOptions } from '../oidc.di';
import { effectiveIssuer } from '../config/oidc-config.service';
import { OPENID_SCOPE } from '../config/oidc-config.state';
import { OidcDefaults } from '../config/oidc-defaults.service';
import { OidcResources } from '../config/oidc-resources';
import { publicJwk, SUPPORTED_ALGORITHMS } from './key-material';

type Raw<B> = { kind: 'raw'; status: number; body: B; headers?: Record<string, string> } | { data: null };

/** The discovery document and the JWKS of a provider (both need no token). */
@Injectable()
export class DiscoveryService {
  constructor(
    private readonly resources: OidcResources,
    private readonly defaults: OidcDefaults,
    @Inject(OIDC_OPTIONS) private readonly options: OidcModuleOptions,
    @Inject(OIDC_RUNTIME) private readonly runtime: Pick<ServiceRuntime, 'clock'>,
  ) {}

  async discovery(namespace: string, name: string): Promise<Raw<OidcDiscovery>> {
    await this.defaults.ensure(namespace);
    const provider = await this.resources.get(namespace, 'provider', name);
    if (!provider) return { data: null };
    const issuer = effectiveIssuer(provider, this.options.apiAddr, namespace, name);
    return {
      kind: 'raw',
      status: 200,
      // as Vault: clients may cache the document for an hour
      headers: { 'cache-control': 'max-age=3600' },
      body: {
        issuer,
        jwks_uri: `${issuer}/.well-known/keys`,
        // Coffer has no UI: the API's own authorization endpoint, called with the user's token
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        userinfo_endpoint: `${issuer}/userinfo`,
        request_uri_parameter_supported: false,
        id_token_signing_alg_values_supported: [...SUPPORTED_ALGORITHMS],
        response_types_supported: ['code'],
        // the "openid" scope is reserved and offered by every provider
        scopes_supported: [...provider.scopesSupported, OPENID_SCOPE],
        subject_types_supported: ['public'],
        grant_types_supported: ['authorization_code'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      },
    };
  }

  /**
   * The public keys of the keys the provider's clients sign with (all clients for "*"): each
   * key's current and next keypairs, and rotated ones until their verification TTL ends.
   */
  async keys(namespace: string, name: string): Promise<Raw<{ keys: PublicJwk[] }>> {
    await this.defaults.ensure(namespace);
    const provider = await this.resources.get(namespace, 'provider', name);
    if (!provider) return { data: null };
    const all = provider.allowedClientIds.includes('*');
    const keyNames = new Set(
      (await this.resources.repo.all(namespace, 'client'))
        .filter(({ state }) => all || provider.allowedClientIds.includes(state.clientId))
        .map(({ state }) => state.key),
    );
    const now = this.runtime.clock().getTime();
    const keys: PublicJwk[] = [];
    for (const keyName of [...keyNames].sort()) {
      const key = await this.resources.get(namespace, 'key', keyName);
      if (!key) continue;
      keys.push(publicJwk(key.current), publicJwk(key.next));
      for (const retired of key.retired) if (retired.expiresAtMs > now) keys.push(publicJwk(retired));
    }
    return { kind: 'raw', status: 200, body: { keys } };
  }
}
