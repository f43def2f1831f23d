import { Inject, Injectable } from '@nestjs/common';
import { randomBase62 } from '@coffer/barrier';
import type { CallerContext } from '@coffer/contracts';
import type { OauthErrorBody, OidcAuthorizeFields } from '@coffer/contracts/oidc';
import type { ServiceRuntime } from '@coffer/event-store';
import { OIDC_RUNTIME } from '../oidc.di';
import { OPENID_SCOPE } from '../config/oidc-config.state';
import { OidcDefaults } from '../config/oidc-defaults.service';
import { OidcResources } from '../config/oidc-resources';
import { EntityAccess } from './entity-access';
import { OidcCodeEventLog } from './grant.projection';
import { secretHash } from './grant.repository';
import { CODE_TTL_MS, type CodeGrant } from './grant.state';
import { oauthFail, oauthFlow, rawOk, type RawAnswer } from './oauth-response';
import { parseScopes, redirectUriAllowed, validChallenge } from './oauth-rules';

/** Vault's authorization codes: 32 base62 characters. */
const CODE_LENGTH = 32;

type AuthorizeAnswer = RawAnswer<{ code: string; state: string } | OauthErrorBody>;

/**
 * The authorization endpoint, as Vault's pathOIDCAuthorize: the caller's Coffer token stands for
 * the end-user (its entity), and the answer is JSON `{code, state}` for the user agent to take to
 * the redirect URI. A bad client_id or redirect_uri is answered with the error only (invalid_client_id,
 * invalid_redirect_uri: never taken to a redirect); other errors carry `state` for the redirect.
 */
@Injectable()
export class AuthorizeService {
  constructor(
    private readonly resources: OidcResources,
    private readonly defaults: OidcDefaults,
    private readonly access: EntityAccess,
    private readonly codes: OidcCodeEventLog,
    @Inject(OIDC_RUNTIME) private readonly runtime: Pick<ServiceRuntime, 'clock'>,
  ) {}

  async authorize(
    namespace: string,
    provider: string,
    fields: OidcAuthorizeFields,
    caller: CallerContext,
  ): Promise<AuthorizeAnswer> {
    await this.defaults.ensure(namespace);
    return oauthFlow(async () => {
      const grant = await this.decide(namespace, provider, fields, caller);
      const code = randomBase62(CODE_LENGTH);
      const codeHash = secretHash(code);
      await this.codes.append({ codeHash, grant }, 0, [{ type: 'OidcCodeIssued', data: { grant } }]);
      return rawOk({ code, state: fields.state ?? '' });
    });
  }

  private async decide(
    namespace: string,
    providerName: string,
    f: OidcAuthorizeFields,
    caller: CallerContext,
  ): Promise<CodeGrant> {
    const state = f.state ?? '';
    const fail = (error: string, description: string, withState = state): never =>
      oauthFail(400, error, description, withState);
    const clientId = f.client_id ?? '';
    if (clientId === '') fail('invalid_client_id', 'client_id parameter is required', '');
    // independent reads at once; the checks below keep Vault's order
    const [client, provider] = await Promise.all([
      this.resources.repo.clientById(namespace, clientId),
      this.resources.get(namespace, 'provider', providerName),
    ]);
    if (!client) return fail('invalid_client_id', 'client with client_id not found', '');
    const redirectUri = f.redirect_uri ?? '';
    if (redirectUri === '') fail('invalid_request', 'redirect_uri parameter is required', '');
    if (!redirectUriAllowed(redirectUri, client.state.redirectUris))
      fail('invalid_redirect_uri', 'redirect_uri is not allowed for the client', '');

    if (!provider) return fail('invalid_request', 'provider not found');
    if (!provider.allowedClientIds.includes('*') && !provider.allowedClientIds.includes(clientId))
      fail('unauthorized_client', 'client is not authorized to use the provider');
    // as Vault: these two answer without the state
    if (f.request !== undefined) fail('request_not_supported', 'request parameter is not supported', '');
    if (f.request_uri !== undefined)
      fail('request_uri_not_supported', 'request_uri parameter is not supported', '');

    const requested = parseScopes(f.scope ?? '');
    if (!requested.includes(OPENID_SCOPE))
      fail('invalid_request', `scope parameter must contain the ${JSON.stringify(OPENID_SCOPE)} value`);
    // scope values the provider does not offer are ignored (OIDC Core 3.1.2.1)
    const scopes = requested.filter((s) => s !== OPENID_SCOPE && provider.scopesSupported.includes(s));

    const responseType = f.response_type ?? '';
    if (responseType === '') fail('invalid_request', 'response_type parameter is required');
    if (responseType !== 'code') fail('unsupported_response_type', 'unsupported response_type value');
    if (state === '') fail('invalid_request', 'state parameter is required');
    const nonce = f.nonce ?? '';
    if (nonce === '') fail('invalid_request', 'nonce parameter is required');

    if (!caller.entityId) return fail('access_denied', 'identity entity must be associated with the request');
    const tokenRef = caller.tokenRef ?? '';
    const [entity, authTimeMs] = await Promise.all([
      this.access.facts(caller.entityId),
      tokenRef === '' ? null : this.access.tokenCreatedAt(tokenRef),
    ]);
    if (!entity) return fail('access_denied', 'identity entity associated with the request not found');
    if (!(await this.access.assigned(namespace, entity, client.state.assignments)))
      fail('access_denied', 'identity entity not authorized by client assignment');

    let codeChallenge = '';
    let codeChallengeMethod: CodeGrant['codeChallengeMethod'] = '';
    // an empty challenge is no challenge (Vault's GetOk)
    if (f.code_challenge !== undefined && f.code_challenge !== '') {
      const method = f.code_challenge_method ?? '';
      if (method !== '' && method !== 'plain' && method !== 'S256')
        fail('invalid_request', 'invalid code_challenge_method');
      if (!validChallenge(f.code_challenge)) fail('invalid_request', 'invalid code_challenge');
      codeChallenge = f.code_challenge;
      codeChallengeMethod = method === 'S256' ? 'S256' : 'plain';
    }

    const prompts = (f.prompt ?? '').split(' ').filter((p) => p !== '');
    if (prompts.some((p) => !['none', 'login', 'consent', 'select_account'].includes(p)))
      fail('invalid_request', 'invalid prompt value');
    if (prompts.includes('none') && prompts.length > 1)
      fail('invalid_request', 'prompt "none" cannot be combined with other values');

    const now = this.runtime.clock().getTime();
    if (authTimeMs === null) return fail('access_denied', 'token associated with request not found');
    // no interaction happens here: a login can only be asked of the user agent
    if (prompts.includes('login'))
      fail('max_age_violation', 'active re-authentication is required by prompt=login');
    if (f.max_age !== undefined) {
      if (f.max_age < 1) fail('invalid_request', 'max_age must be greater than zero');
      if (Math.floor((now - authTimeMs) / 1000) > f.max_age)
        fail('max_age_violation', 'active re-authentication is required by max_age');
    }
    return {
      namespace,
      provider: providerName,
      clientId,
      entityId: entity.id,
      redirectUri,
      nonce,
      scopes,
      codeChallenge,
      codeChallengeMethod,
      authTimeMs,
      tokenRef,
      expiresAtMs: now + CODE_TTL_MS,
    };
  }
}
