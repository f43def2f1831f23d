import { createHash } from 'node:crypto';
import * as client from 'openid-client';
import * as oauth from 'oauth4webapi';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import {
  authorize,
  exchange,
  pkcePair,
  startTarget,
  START_TIMEOUT_MS,
  TARGETS,
  uniq,
  userinfo,
  type ApiClient,
  type OidcClientCreds,
  type Target,
} from './support';

jest.setTimeout(120_000);

const REDIRECT = 'https://app.example.com/callback';
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const;
const b64 = (s: string): string => Buffer.from(s).toString('base64');

/** The OIDC provider (identity/oidc/*) driven by real relying parties: openid-client and oauth4webapi. */
describe.each(TARGETS)('%s: OIDC provider', (kind) => {
  let target: Target;
  let root: ApiClient;
  let user: ApiClient;
  let outsider: ApiClient;
  let entityId: string;
  let userToken: string;
  let app: OidcClientCreds;
  let other: OidcClientCreds;
  const provider = uniq('prov');
  const issuerOf = (name: string) => `${target.baseUrl}/v1/identity/oidc/provider/${name}`;

  const creds = async (name: string): Promise<OidcClientCreds> => {
    const read = await root.get(`identity/oidc/client/${name}`);
    expect(read.status).toBe(200);
    return { clientId: read.body.data.client_id, clientSecret: read.body.data.client_secret };
  };
  // the body is in the comparison so that a failure shows the error
  const ok = async (res: Promise<{ status: number; body: unknown }>, status = 204) => {
    const { body, status: got } = await res;
    expect({ status: got, body: got === status ? undefined : body }).toEqual({ status, body: undefined });
  };

  beforeAll(async () => {
    target = await startTarget(kind, { label: 'oidc' });
    root = target.root;
    const mount = uniq('up');
    await ok(root.post(`sys/auth/${mount}`, { type: 'userpass' }));
    await ok(root.post(`auth/${mount}/users/alice`, { password: 'alice-pw' }));
    await ok(root.post(`auth/${mount}/users/mallory`, { password: 'mallory-pw' }));
    const alice = await target.anon.post(`auth/${mount}/login/alice`, { password: 'alice-pw' });
    entityId = alice.body.auth.entity_id;
    userToken = alice.body.auth.client_token;
    user = target.anon.withToken(userToken);
    const mallory = await target.anon.post(`auth/${mount}/login/mallory`, { password: 'mallory-pw' });
    outsider = target.anon.withToken(mallory.body.auth.client_token);
    await ok(
      root.post(`identity/entity/id/${entityId}`, {
        metadata: { email: 'alice@example.com', phone: '555-0100' },
      }),
    );

    await ok(root.post('identity/oidc/key/signer', { algorithm: 'ES256', allowed_client_ids: '*' }));
    await ok(root.post('identity/oidc/assignment/people', { entity_ids: [entityId] }));
    await ok(
      root.post('identity/oidc/scope/profile', {
        template: '{"username": {{identity.entity.name}}, "meta": {{identity.entity.metadata}}}',
      }),
    );
    await ok(
      root.post('identity/oidc/scope/groups', {
        template: b64('{"groups": {{identity.entity.groups.names}}}'),
      }),
    );
    await ok(
      root.post('identity/oidc/scope/contact', {
        // as in Vault's docs: "}}}" would be unbalanced templating characters
        template:
          '{"contact": {"email": {{identity.entity.metadata.email}}, "phone_number": {{identity.entity.metadata.phone}} } }',
      }),
    );
    const clientBody = {
      key: 'signer',
      redirect_uris: [REDIRECT],
      assignments: 'people',
      id_token_ttl: '30m',
    };
    await ok(root.post('identity/oidc/client/app', clientBody));
    await ok(root.post('identity/oidc/client/other', { ...clientBody, assignments: 'allow_all' }));
    app = await creds('app');
    other = await creds('other');
    await ok(
      root.post(`identity/oidc/provider/${provider}`, {
        allowed_client_ids: [app.clientId, other.clientId],
        scopes_supported: 'profile,groups,contact',
      }),
    );
  }, START_TIMEOUT_MS);
  afterAll(() => target?.stop());

  /** authorize (S256 PKCE) then exchange: the token response. */
  const flow = async (creds: OidcClientCreds, name = provider, scope = 'openid profile') => {
    const { verifier, challenge } = pkcePair();
    const auth = await authorize(user, name, {
      client_id: creds.clientId,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope,
      state: 's1',
      nonce: 'n1',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    expect(auth.status).toBe(200);
    const code: string = auth.body.code;
    const res = await exchange(target.anon, name, creds, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    });
    return { code, verifier, res };
  };

  describe('configuration', () => {
    it('has Vault built-ins: the default provider and key, the allow_all assignment', async () => {
      expect((await root.list('identity/oidc/provider')).body.data.keys).toEqual(
        expect.arrayContaining(['default', provider]),
      );
      expect((await root.get('identity/oidc/key/default')).body.data).toEqual({
        rotation_period: 86400,
        verification_ttl: 86400,
        algorithm: 'RS256',
        allowed_client_ids: ['*'],
      });
      expect((await root.get('identity/oidc/assignment/allow_all')).body.data).toEqual({
        entity_ids: ['*'],
        group_ids: ['*'],
      });
      expect((await root.delete('identity/oidc/key/default')).body.errors).toEqual([
        'deletion of key "default" not allowed',
      ]);
      expect((await root.post('identity/oidc/assignment/allow_all', {})).body.errors).toEqual([
        'modification of assignment "allow_all" not allowed',
      ]);
    });

    it('reads a client with its generated credentials and refuses a new key', async () => {
      const read = await root.get('identity/oidc/client/app');
      expect(read.body.data).toMatchObject({
        key: 'signer',
        redirect_uris: [REDIRECT],
        assignments: ['people'],
        id_token_ttl: 1800,
        access_token_ttl: 86400,
      });
      expect(read.body.data.client_id).toMatch(/^[A-Za-z0-9]{32}$/);
      expect(read.body.data.client_secret).toMatch(/^hvo_secret_[A-Za-z0-9]{64}$/);
      const change = await root.post('identity/oidc/client/app', { key: 'default' });
      expect(change.status).toBe(400);
      expect(change.body.errors).toEqual(['key modification is not allowed']);
    });

    it('refuses a scope template that is not JSON, or sets a reserved claim, at write (400)', async () => {
      const bad = await root.post('identity/oidc/scope/bad', { template: '{"a": {{identity.entity.id}}' });
      expect(bad.status).toBe(400);
      expect(bad.body.errors[0]).toMatch(/^error parsing template JSON: /);
      const reserved = await root.post('identity/oidc/scope/bad', { template: '{"sub": "x"}' });
      expect(reserved.status).toBe(400);
      expect(reserved.body.errors[0]).toMatch(/^top level key "sub" not allowed/);
      expect((await root.post('identity/oidc/scope/openid', { template: '{}' })).body.errors).toEqual([
        'the "openid" scope name is reserved',
      ]);
      expect((await root.get('identity/oidc/scope/bad')).status).toBe(404);
    });

    it('serves discovery and keys without a token', async () => {
      const disc = await target.anon.get(
        `identity/oidc/provider/${provider}/.well-known/openid-configuration`,
      );
      expect(disc.status).toBe(200);
      expect(disc.headers.get('cache-control')).toBe('max-age=3600');
      const issuer = issuerOf(provider);
      expect(disc.body).toEqual({
        issuer,
        jwks_uri: `${issuer}/.well-known/keys`,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        userinfo_endpoint: `${issuer}/userinfo`,
        request_uri_parameter_supported: false,
        id_token_signing_alg_values_supported: [...ALGORITHMS],
        response_types_supported: ['code'],
        scopes_supported: ['profile', 'groups', 'contact', 'openid'],
        subject_types_supported: ['public'],
        grant_types_supported: ['authorization_code'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      });
      const keys = await target.anon.get(`identity/oidc/provider/${provider}/.well-known/keys`);
      expect(keys.status).toBe(200);
      expect(keys.body.keys).toHaveLength(2); // the signer's current and next keys
      for (const jwk of keys.body.keys) {
        expect(jwk).toMatchObject({ use: 'sig', kty: 'EC', alg: 'ES256', crv: 'P-256' });
        expect(jwk.d).toBeUndefined();
      }
    });
  });

  describe('relying parties', () => {
    it('openid-client: discovery, PKCE, authorize with a userpass token, code grant, ID token, userinfo', async () => {
      const config = await client.discovery(
        new URL(issuerOf(provider)),
        app.clientId,
        { id_token_signed_response_alg: 'ES256' },
        client.ClientSecretBasic(app.clientSecret),
        { execute: [client.allowInsecureRequests] },
      );
      const verifier = client.randomPKCECodeVerifier();
      const state = client.randomState();
      const nonce = client.randomNonce();
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT,
        scope: 'openid profile contact groups',
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
        nonce,
      });
      // the user agent's step: the authorization endpoint with the user's Coffer token
      const answer = await fetch(url, { headers: { 'x-vault-token': userToken } });
      expect(answer.status).toBe(200);
      const { code, state: returned } = (await answer.json()) as { code: string; state: string };
      expect(returned).toBe(state);
      const callback = new URL(`${REDIRECT}?${new URLSearchParams({ code, state: returned }).toString()}`);
      const tokens = await client.authorizationCodeGrant(config, callback, {
        pkceCodeVerifier: verifier,
        expectedState: state,
        expectedNonce: nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      expect(claims).toMatchObject({ sub: entityId, aud: app.clientId, iss: issuerOf(provider), nonce });
      expect(claims?.auth_time).toEqual(expect.any(Number));
      // ES256: the left half of SHA-256 of the access token and of the code
      const half = (v: string) =>
        createHash('sha256').update(v).digest().subarray(0, 16).toString('base64url');
      expect(claims?.at_hash).toBe(half(tokens.access_token));
      expect(claims?.c_hash).toBe(half(code));
      expect(claims?.['contact']).toEqual({ email: 'alice@example.com', phone_number: '555-0100' });
      expect(tokens.expires_in).toBe(86400);
      const info = await client.fetchUserInfo(config, tokens.access_token, entityId);
      expect(info).toMatchObject({
        sub: entityId,
        username: expect.any(String),
        meta: { email: 'alice@example.com', phone: '555-0100' },
        contact: { email: 'alice@example.com', phone_number: '555-0100' },
        groups: expect.any(Array),
      });
    });

    it('oauth4webapi: the same flow with client_secret_post', async () => {
      const issuer = new URL(issuerOf(provider));
      const insecure = { [oauth.allowInsecureRequests]: true };
      const as = await oauth.processDiscoveryResponse(
        issuer,
        await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...insecure }),
      );
      const rp: oauth.Client = { client_id: other.clientId, id_token_signed_response_alg: 'ES256' };
      const verifier = oauth.generateRandomCodeVerifier();
      const nonce = oauth.generateRandomNonce();
      const state = oauth.generateRandomState();
      const auth = await authorize(user, provider, {
        client_id: other.clientId,
        redirect_uri: REDIRECT,
        response_type: 'code',
        scope: 'openid contact',
        state,
        nonce,
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      });
      const params = oauth.validateAuthResponse(
        as,
        rp,
        new URL(
          `${REDIRECT}?${new URLSearchParams({ code: auth.body.code, state: auth.body.state }).toString()}`,
        ),
        state,
      );
      const response = await oauth.authorizationCodeGrantRequest(
        as,
        rp,
        oauth.ClientSecretPost(other.clientSecret),
        params,
        REDIRECT,
        verifier,
        insecure,
      );
      const result = await oauth.processAuthorizationCodeResponse(as, rp, response, {
        expectedNonce: nonce,
        requireIdToken: true,
      });
      const claims = oauth.getValidatedIdTokenClaims(result);
      expect(claims?.sub).toBe(entityId);
      const info = await oauth.processUserInfoResponse(
        as,
        rp,
        entityId,
        await oauth.userInfoRequest(as, rp, result.access_token, insecure),
      );
      expect(info).toEqual({
        sub: entityId,
        contact: { email: 'alice@example.com', phone_number: '555-0100' },
      });
    });

    it('jose verifies ID tokens of every algorithm through the JWKS, before and after rotation', async () => {
      const name = uniq('multi');
      const clients: Record<string, OidcClientCreds> = {};
      for (const alg of ALGORITHMS) {
        await ok(root.post(`identity/oidc/key/${alg}-${name}`, { algorithm: alg, allowed_client_ids: '*' }));
        await ok(
          root.post(`identity/oidc/client/${alg}-${name}`, {
            key: `${alg}-${name}`,
            redirect_uris: REDIRECT,
            assignments: 'allow_all',
          }),
        );
        clients[alg] = await creds(`${alg}-${name}`);
      }
      await ok(root.post(`identity/oidc/provider/${name}`, { allowed_client_ids: '*' }));
      const jwksUri = new URL(`${issuerOf(name)}/.well-known/keys`);
      const verify = (token: string, alg: string) =>
        jwtVerify(token, createRemoteJWKSet(jwksUri), {
          issuer: issuerOf(name),
          audience: clients[alg]!.clientId,
          algorithms: [alg],
        });
      for (const alg of ALGORITHMS) {
        const before = (await flow(clients[alg]!, name, 'openid')).res;
        expect(before.status).toBe(200);
        const first: string = before.body.id_token;
        expect((await verify(first, alg)).payload.sub).toBe(entityId);
        await ok(root.post(`identity/oidc/key/${alg}-${name}/rotate`, {}));
        const after: string = (await flow(clients[alg]!, name, 'openid')).res.body.id_token;
        expect(decodeProtectedHeader(after).kid).not.toBe(decodeProtectedHeader(first).kid);
        // a fresh key set: the rotated key is published, the retired one still verifies
        expect((await verify(after, alg)).payload.sub).toBe(entityId);
        expect((await verify(first, alg)).payload.sub).toBe(entityId);
      }
    });
  });

  describe('bad input', () => {
    const base = () => ({
      client_id: app.clientId,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'openid',
      state: 'st',
      nonce: 'nn',
    });

    it.each([
      'https://app.example.com/callback/',
      'https://app.example.com/callbackx',
      'https://APP.example.com/callback',
      'https://app.example.com/Callback',
      'https://user@app.example.com/callback',
      'https://app.example.com:444/callback',
      'https://app.example.com/%63allback',
      'https://app.example.com/callback?x=1',
      'http://app.example.com/callback',
      'http://localhost/callback',
      'http://127.0.0.1/callback',
      'not a url',
    ])('never redirects to the near miss %s', async (uri) => {
      const res = await authorize(user, provider, { ...base(), redirect_uri: uri });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: 'invalid_redirect_uri',
        error_description: 'redirect_uri is not allowed for the client',
        state: '',
      });
    });

    it('never redirects for an unknown client_id; other errors carry the state', async () => {
      const unknown = await authorize(user, provider, { ...base(), client_id: 'nope' });
      expect(unknown.status).toBe(400);
      expect(unknown.body).toEqual({
        error: 'invalid_client_id',
        error_description: 'client with client_id not found',
        state: '',
      });
      const noNonce = await authorize(user, provider, { ...base(), nonce: undefined });
      expect(noNonce.body).toEqual({
        error: 'invalid_request',
        error_description: 'nonce parameter is required',
        state: 'st',
      });
      const noState = await authorize(user, provider, { ...base(), state: undefined });
      expect(noState.body).toMatchObject({
        error: 'invalid_request',
        error_description: 'state parameter is required',
      });
      const noOpenid = await authorize(user, provider, { ...base(), scope: 'profile' });
      expect(noOpenid.body).toMatchObject({
        error: 'invalid_request',
        error_description: 'scope parameter must contain the "openid" value',
      });
      const maxAge = await authorize(user, provider, { ...base(), max_age: '0' });
      expect(maxAge.body.error_description).toBe('max_age must be greater than zero');
    });

    it('denies an entity outside the client assignments', async () => {
      const res = await authorize(outsider, provider, base());
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: 'access_denied',
        error_description: 'identity entity not authorized by client assignment',
        state: 'st',
      });
    });

    it('refuses a reused code and revokes the access token it gave', async () => {
      const { code, verifier, res } = await flow(app);
      expect(res.status).toBe(200);
      expect((await userinfo(target.anon, provider, res.body.access_token)).status).toBe(200);
      const again = await exchange(target.anon, provider, app, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
      });
      expect(again.status).toBe(400);
      expect(again.body).toEqual({
        error: 'invalid_grant',
        error_description: 'authorization grant is invalid or expired',
      });
      const revoked = await userinfo(target.anon, provider, res.body.access_token);
      expect(revoked.status).toBe(401);
      expect(revoked.body.error).toBe('invalid_token');
      expect(revoked.headers.get('www-authenticate')).toBe(
        'Bearer error="invalid_token",error_description="access token is expired"',
      );
    });

    it('refuses a code presented by another client (and spends it)', async () => {
      const { verifier, challenge } = pkcePair();
      const code = (
        await authorize(user, provider, {
          ...base(),
          code_challenge: challenge,
          code_challenge_method: 'S256',
        })
      ).body.code as string;
      const params = {
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
      };
      const stolen = await exchange(target.anon, provider, other, params);
      expect(stolen.body).toEqual({
        error: 'invalid_grant',
        error_description: 'authorization code was not issued to the client',
      });
      expect((await exchange(target.anon, provider, app, params)).body.error).toBe('invalid_grant');
    });

    it('refuses PKCE downgrades and a wrong client secret', async () => {
      const { challenge } = pkcePair();
      const issue = async () =>
        (
          await authorize(user, provider, {
            ...base(),
            code_challenge: challenge,
            code_challenge_method: 'S256',
          })
        ).body.code as string;
      const params = (code: string, code_verifier?: string) => ({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        code_verifier,
      });
      expect((await exchange(target.anon, provider, app, params(await issue()))).body).toEqual({
        error: 'invalid_request',
        error_description: 'expected code_verifier for token exchange',
      });
      // the challenge itself as a "plain" verifier
      expect((await exchange(target.anon, provider, app, params(await issue(), challenge))).body).toEqual({
        error: 'invalid_grant',
        error_description: 'invalid code_verifier for token exchange',
      });
      const plain = (await authorize(user, provider, base())).body.code as string;
      expect((await exchange(target.anon, provider, app, params(plain, 'x'.repeat(43)))).body).toEqual({
        error: 'invalid_request',
        error_description: 'unexpected code_verifier for token exchange',
      });
      const wrong = await exchange(
        target.anon,
        provider,
        { ...app, clientSecret: 'nope' },
        params(await issue()),
      );
      expect(wrong.status).toBe(401);
      expect(wrong.body).toEqual({
        error: 'invalid_client',
        error_description: 'client failed to authenticate',
      });
      expect(wrong.headers.get('www-authenticate')).toBe('Basic');
      expect(wrong.headers.get('pragma')).toBe('no-cache');
    });

    it('stops honouring access tokens once the Coffer token they came from is revoked', async () => {
      const mount = uniq('up');
      await ok(root.post(`sys/auth/${mount}`, { type: 'userpass' }));
      await ok(root.post(`auth/${mount}/users/alice2`, { password: 'pw' }));
      const login = await target.anon.post(`auth/${mount}/login/alice2`, { password: 'pw' });
      const token: string = login.body.auth.client_token;
      const code = (
        await authorize(target.anon.withToken(token), provider, { ...base(), client_id: other.clientId })
      ).body.code as string;
      const res = await exchange(target.anon, provider, other, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
      });
      expect(res.status).toBe(200);
      expect((await userinfo(target.anon, provider, res.body.access_token)).status).toBe(200);
      // userinfo answers POST too (form-encoded, the token still in the header)
      const posted = await target.anon.request('POST', `identity/oidc/provider/${provider}/userinfo`, {
        raw: '',
        headers: {
          authorization: `Bearer ${res.body.access_token}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        anonymous: true,
      });
      expect(posted.body).toMatchObject({ sub: expect.any(String) });
      await ok(root.post('auth/token/revoke', { token }));
      expect((await userinfo(target.anon, provider, res.body.access_token)).status).toBe(401);
    });
  });
});
