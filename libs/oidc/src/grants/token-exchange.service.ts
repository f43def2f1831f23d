import { Inject, Injectable } from '@nestjs/common';
import { randomBase62 } from '@coffer/barrier';
import type { OauthErrorBody, OidcTokenBody } from '@coffer/contracts/oidc';
import { isConcurrencyError, type ServiceRuntime } from '@coffer/event-store';
import { OIDC_OPTIONS, OIDC_RUNTIME, type OidcModuleOptions } from '../oidc.di';
import { effectiveIssuer } from '../config/oidc-config.service';
import { OidcDefaults } from '../config/oidc-defaults.service';
import { OidcResources } from '../config/oidc-resources';
import { hashClaim, signJwt } from '../keys/key-material';
import { EntityAccess } from './entity-access';
import { OidcCodeEventLog } from './grant.projection';
import { OidcGrantRepository, secretHash, type StoredCode } from './grant.repository';
import { oauthFail, oauthFlow, rawOk, tokenHeaders, type RawAnswer } from './oauth-response';
import { basicCredentials, constantTimeEqual, pkceVerified } from './oauth-rules';
import { scopeClaims } from './scope-claims';
import { namespaceClaim, ScopeTemplates } from './scope-templates';

/** Opaque access tokens (the bearer of userinfo): 48 base62 characters, stored by hash only. */
const ACCESS_TOKEN_LENGTH = 48;

type TokenAnswer = RawAnswer<
  { access_token: string; token_type: 'Bearer'; expires_in: number; id_token: string } | OauthErrorBody
>;

const INVALID_GRANT = 'authorization grant is invalid or expired';

/**
 * The token endpoint, as Vault's pathOIDCToken (authorization_code grant): client authentication
 * (client_secret_basic or client_secret_post), then the code, redeemed once. Every exchange that
 * finds the code spends it, refused or not (Vault deletes it from its cache either way); a code
 * presented again revokes the access token it gave.
 */
@Injectable()
export class TokenExchangeService {
  constructor(
    private readonly resources: OidcResources,
    private readonly defaults: OidcDefaults,
    private readonly grants: OidcGrantRepository,
    private readonly codes: OidcCodeEventLog,
    private readonly access: EntityAccess,
    private readonly templates: ScopeTemplates,
    @Inject(OIDC_RUNTIME) private readonly runtime: Pick<ServiceRuntime, 'clock'>,
    @Inject(OIDC_OPTIONS) private readonly options: OidcModuleOptions,
  ) {}

  async exchange(
    namespace: string,
    providerName: string,
    body: OidcTokenBody,
    authorization: string | undefined,
  ): Promise<TokenAnswer> {
    await this.defaults.ensure(namespace);
    return tokenHeaders(
      await oauthFlow(() => this.exchangeOrFail(namespace, providerName, body, authorization)),
    );
  }

  private async exchangeOrFail(
    namespace: string,
    providerName: string,
    body: OidcTokenBody,
    authorization: string | undefined,
  ): Promise<TokenAnswer> {
    const basic = basicCredentials(authorization);
    const clientId = basic?.id ?? body.client_id ?? '';
    const clientSecret = basic?.secret ?? body.client_secret ?? '';
    // independent reads at once; the checks below keep Vault's order
    const [provider, client] = await Promise.all([
      this.resources.get(namespace, 'provider', providerName),
      clientId === '' ? undefined : this.resources.repo.clientById(namespace, clientId),
    ]);
    if (!provider) return oauthFail(400, 'invalid_request', 'provider not found');
    if (!basic && clientId === '') oauthFail(400, 'invalid_request', 'client_id parameter is required');
    // a wrong secret and an unknown client are told apart by nobody
    if (!client || !constantTimeEqual(client.state.clientSecret, clientSecret))
      return oauthFail(401, 'invalid_client', 'client failed to authenticate');
    if (!provider.allowedClientIds.includes('*') && !provider.allowedClientIds.includes(clientId))
      oauthFail(401, 'invalid_client', 'client is not authorized to use the provider');
    const key = await this.resources.get(namespace, 'key', client.state.key);
    if (!key)
      return oauthFail(500, 'server_error', `client key ${JSON.stringify(client.state.key)} not found`);
    if (!key.allowedClientIds.includes('*') && !key.allowedClientIds.includes(clientId))
      oauthFail(401, 'invalid_client', 'client is not authorized to use the key');
    if (body.grant_type !== 'authorization_code')
      oauthFail(400, 'unsupported_grant_type', 'unsupported grant_type or parameter is empty value');

    const code = body.code ?? '';
    if (code === '') oauthFail(400, 'invalid_request', 'code parameter is required');
    const codeHash = secretHash(code);
    const stored = await this.grants.code(codeHash);
    const now = this.runtime.clock().getTime();
    if (!stored || stored.grant.namespace !== namespace)
      return oauthFail(400, 'invalid_grant', INVALID_GRANT);
    if (stored.state !== 'issued') {
      await this.replayed(codeHash, stored);
      return oauthFail(400, 'invalid_grant', INVALID_GRANT);
    }
    if (stored.grant.expiresAtMs <= now) return oauthFail(400, 'invalid_grant', INVALID_GRANT);

    // from here on the code is spent, whatever the outcome
    const spend = async (accessTokenHash: string | null, accessTokenExpiresAtMs: number): Promise<void> => {
      try {
        await this.codes.append({ codeHash, grant: stored.grant }, stored.version, [
          { type: 'OidcCodeRedeemed', data: { accessTokenHash, accessTokenExpiresAtMs } },
        ]);
      } catch (error) {
        if (!isConcurrencyError(error)) throw error;
        // another exchange of the same code won the race: this one is a replay
        const again = await this.grants.code(codeHash);
        if (again) await this.replayed(codeHash, again);
        oauthFail(400, 'invalid_grant', INVALID_GRANT);
      }
    };
    const refuse = async (status: number, error: string, description: string): Promise<never> => {
      await spend(null, now);
      return oauthFail(status, error, description);
    };
    const grant = stored.grant;
    if (grant.clientId !== clientId)
      await refuse(400, 'invalid_grant', 'authorization code was not issued to the client');
    if (grant.provider !== providerName)
      await refuse(400, 'invalid_grant', 'authorization code was not issued by the provider');
    const redirectUri = body.redirect_uri ?? '';
    if (redirectUri === '') await refuse(400, 'invalid_request', 'redirect_uri parameter is required');
    if (grant.redirectUri !== redirectUri)
      await refuse(
        400,
        'invalid_grant',
        'redirect_uri does not match the redirect_uri used in the authorization request',
      );
    const verifier = body.code_verifier ?? '';
    if (grant.codeChallengeMethod === '' && verifier !== '')
      await refuse(400, 'invalid_request', 'unexpected code_verifier for token exchange');
    if (grant.codeChallengeMethod !== '') {
      if (verifier === '') await refuse(400, 'invalid_request', 'expected code_verifier for token exchange');
      if (!pkceVerified(verifier, grant.codeChallenge, grant.codeChallengeMethod))
        await refuse(400, 'invalid_grant', 'invalid code_verifier for token exchange');
    }
    const [alive, entity] = await Promise.all([
      this.access.tokenAlive(grant.tokenRef),
      this.access.facts(grant.entityId),
    ]);
    // the Coffer token that authorized must still be alive: revoking it revokes the grant
    if (!alive) await refuse(400, 'invalid_grant', INVALID_GRANT);
    if (!entity)
      return refuse(400, 'invalid_request', 'identity entity associated with the request not found');
    if (!(await this.access.assigned(namespace, entity, client.state.assignments)))
      await refuse(400, 'invalid_request', 'identity entity not authorized by client assignment');
    const claims = scopeClaims(await this.templates.of(namespace, grant.scopes), entity, new Date(now));
    if (!claims.ok) return refuse(400, 'invalid_request', claims.conflict);

    const accessToken = randomBase62(ACCESS_TOKEN_LENGTH);
    const accessTokenExpiresAtMs = now + client.state.accessTokenTtl * 1000;
    const iat = Math.floor(now / 1000);
    const idToken = await signJwt(key.current, {
      ...claims.claims,
      iss: effectiveIssuer(provider, this.options.apiAddr, namespace, providerName),
      namespace: namespaceClaim(namespace),
      sub: grant.entityId,
      aud: clientId,
      exp: iat + client.state.idTokenTtl,
      iat,
      ...(grant.nonce !== '' ? { nonce: grant.nonce } : {}),
      ...(grant.authTimeMs !== null ? { auth_time: Math.floor(grant.authTimeMs / 1000) } : {}),
      at_hash: hashClaim(key.algorithm, accessToken),
      c_hash: hashClaim(key.algorithm, code),
    });
    await spend(secretHash(accessToken), accessTokenExpiresAtMs);
    return rawOk({
      access_token: accessToken,
      token_type: 'Bearer' as const,
      expires_in: client.state.accessTokenTtl,
      id_token: idToken,
    });
  }

  /** A spent code presented again: what it gave is revoked (once; later replays change nothing). */
  private async replayed(codeHash: string, stored: StoredCode): Promise<void> {
    if (stored.state !== 'redeemed') return;
    try {
      await this.codes.append({ codeHash, grant: stored.grant }, stored.version, [
        { type: 'OidcCodeReplayed', data: {} },
      ]);
    } catch (error) {
      if (!isConcurrencyError(error)) throw error;
    }
  }
}
