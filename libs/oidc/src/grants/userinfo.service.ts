import { Inject, Injectable } from '@nestjs/common';
import type { OauthErrorBody } from '@coffer/contracts/oidc';
import type { ServiceRuntime } from '@coffer/event-store';
import { OIDC_RUNTIME } from '../oidc.di';
import { OidcDefaults } from '../config/oidc-defaults.service';
import { OidcResources } from '../config/oidc-resources';
import { EntityAccess } from './entity-access';
import { OidcGrantRepository, secretHash } from './grant.repository';
import { oauthFail, oauthFlow, rawOk, userinfoHeaders, type RawAnswer } from './oauth-response';
import { bearerToken } from './oauth-rules';
import { scopeClaims } from './scope-claims';
import { ScopeTemplates } from './scope-templates';

type UserinfoAnswer = RawAnswer<Record<string, unknown> | OauthErrorBody>;

/**
 * The userinfo endpoint, as Vault's pathOIDCUserInfo: a bearer access token of the token
 * endpoint, alive (not expired, not revoked by a code replay, its Coffer token not revoked), for
 * an entity still assigned to the client; the claims are `sub` and those of the token's scopes.
 */
@Injectable()
export class UserinfoService {
  constructor(
    private readonly resources: OidcResources,
    private readonly defaults: OidcDefaults,
    private readonly grants: OidcGrantRepository,
    private readonly access: EntityAccess,
    private readonly templates: ScopeTemplates,
    @Inject(OIDC_RUNTIME) private readonly runtime: Pick<ServiceRuntime, 'clock'>,
  ) {}

  async userinfo(
    namespace: string,
    providerName: string,
    authorization: string | undefined,
  ): Promise<UserinfoAnswer> {
    await this.defaults.ensure(namespace);
    return userinfoHeaders(await oauthFlow(() => this.claims(namespace, providerName, authorization)));
  }

  private async claims(namespace: string, providerName: string, authorization: string | undefined) {
    const token = bearerToken(authorization);
    const [provider, stored] = await Promise.all([
      this.resources.get(namespace, 'provider', providerName),
      token === undefined ? undefined : this.grants.accessToken(secretHash(token)),
    ]);
    if (!provider) return oauthFail(400, 'invalid_request', 'provider not found');
    if (!token) return oauthFail(401, 'invalid_token', 'access token must be sent as a Bearer token');
    const now = this.runtime.clock().getTime();
    if (!stored || stored.revoked || stored.expiresAtMs <= now || stored.grant.namespace !== namespace)
      return oauthFail(401, 'invalid_token', 'access token is expired');
    const grant = stored.grant;
    if (grant.provider !== providerName)
      oauthFail(401, 'invalid_token', 'access token is malformed or invalid');
    const [alive, client, entity] = await Promise.all([
      this.access.tokenAlive(grant.tokenRef),
      this.resources.repo.clientById(namespace, grant.clientId),
      this.access.facts(grant.entityId),
    ]);
    if (!alive) oauthFail(401, 'invalid_token', 'access token is expired');
    if (!client) return oauthFail(403, 'access_denied', 'client not found');
    if (!entity)
      return oauthFail(403, 'access_denied', 'identity entity associated with the request not found');
    if (!(await this.access.assigned(namespace, entity, client.state.assignments)))
      oauthFail(403, 'access_denied', 'identity entity not authorized by client assignment');
    if (!provider.allowedClientIds.includes('*') && !provider.allowedClientIds.includes(grant.clientId))
      oauthFail(403, 'access_denied', 'client is not authorized to use the provider');
    // scopes the provider no longer offers are ignored
    const scopes = grant.scopes.filter((s) => provider.scopesSupported.includes(s));
    const claims = scopeClaims(await this.templates.of(namespace, scopes), entity, new Date(now));
    if (!claims.ok) return oauthFail(400, 'invalid_request', claims.conflict);
    return rawOk({ ...claims.claims, sub: entity.id });
  }
}
