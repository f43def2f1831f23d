import { createHash } from 'node:crypto';
import * as client from 'openid-client';
import * as oauth from 'oauth4webapi';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import {
  authorize,
  expectStatus as ok,
  OIDC_REDIRECT as REDIRECT,
  setUpOidc,
  startTarget,
  START_TIMEOUT_MS,
  TARGETS,
  uniq,
  type OidcClientCreds,
  type OidcFixture,
} from './support';

jest.setTimeout(120_000);

const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const;

/**
 * The OIDC provider (identity/oidc/*): its configuration, and the authorization code flow driven
 * by real relying parties (openid-client, oauth4webapi) with ID tokens verified by jose.
 * Bad input: oidc-provider-bad-input.e2e-spec.ts.
 */
describe.each(TARGETS)('%s: OIDC provider', (kind) => {
  let f: OidcFixture;
  beforeAll(async () => {
    f = await setUpOidc(await startTarget(kind, { label: 'oidc' }));
  }, START_TIMEOUT_MS);
  afterAll(() => f?.target.stop());

  describe('configuration', () => {
    it('has Vault built-ins: the default provider and key, the allow_all assignment', async () => {
      expect((await f.root.list('identity/oidc/provider')).body.data.keys).toEqual(
        expect.arrayContaining(['default', f.provider]),
      );
      expect((await f.root.get('identity/oidc/key/default')).body.data).toEqual({
        rotation_period: 86400,
        verification_ttl: 86400,
        algorithm: 'RS256',
        allowed_client_ids: ['*'],
      });
      expect((await f.root.get('identity/oidc/assignment/allow_all')).body.data).toEqual({
        entity_ids: ['*'],
        group_ids: ['*'],
      });
      expect((await f.root.delete('identity/oidc/key/default')).body.errors).toEqual([
        'deletion of key "default" not allowed',
      ]);
      expect((await f.root.post('identity/oidc/assignment/allow_all', {})).body.errors).toEqual([
        'modification of assignment "allow_all" not allowed',
      ]);
    });

    it('reads a client with its generated credentials and refuses a new key', async () => {
      const read = await f.root.get('identity/oidc/client/app');
      expect(read.body.data).toMatchObject({
        key: 'signer',
        redirect_uris: [REDIRECT],
        assignments: ['people'],
        id_token_ttl: 1800,
        access_token_ttl: 86400,
      });
      expect(read.body.data.client_id).toMatch(/^[A-Za-z0-9]{32}$/);
      expect(read.body.data.client_secret).toMatch(/^hvo_secret_[A-Za-z0-9]{64}$/);
      const change = await f.root.post('identity/oidc/client/app', { key: 'default' });
      expect(change.status).toBe(400);
      expect(change.body.errors).toEqual(['key modification is not allowed']);
    });

    it('refuses a scope template that is not JSON, or sets a reserved claim, at write (400)', async () => {
      const bad = await f.root.post('identity/oidc/scope/bad', { template: '{"a": {{identity.entity.id}}' });
      expect(bad.status).toBe(400);
      expect(bad.body.errors[0]).toMatch(/^error parsing template JSON: /);
      const reserved = await f.root.post('identity/oidc/scope/bad', { template: '{"sub": "x"}' });
      expect(reserved.status).toBe(400);
      expect(reserved.body.errors[0]).toMatch(/^top level key "sub" not allowed/);
      expect((await f.root.post('identity/oidc/scope/openid', { template: '{}' })).body.errors).toEqual([
        'the "openid" scope name is reserved',
      ]);
      expect((await f.root.get('identity/oidc/scope/bad')).status).toBe(404);
    });

    it('documents the OIDC routes in the identity mount help and OpenAPI', async () => {
      const help = await f.root.get('identity/oidc', { query: { help: 1 } });
      expect(help.status).toBe(200);
      expect(help.body.help).toContain('needs no token');
      const writes = Object.values(help.body.openapi.paths as Record<string, { post?: unknown }>).filter(
        (p) => p.post,
      );
      expect(writes.length).toBeGreaterThan(5);
      expect((await f.root.get('identity/entity', { query: { help: 1 } })).status).toBe(200);
    });

    it('serves discovery and keys without a token', async () => {
      const disc = await f.target.anon.get(
        `identity/oidc/provider/${f.provider}/.well-known/openid-configuration`,
      );
      expect(disc.status).toBe(200);
      expect(disc.headers.get('cache-control')).toBe('max-age=3600');
      const issuer = f.issuerOf(f.provider);
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
      const keys = await f.target.anon.get(`identity/oidc/provider/${f.provider}/.well-known/keys`);
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
        new URL(f.issuerOf(f.provider)),
        f.app.clientId,
        { id_token_signed_response_alg: 'ES256' },
        client.ClientSecretBasic(f.app.clientSecret),
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
      const answer = await fetch(url, { headers: { 'x-vault-token': f.userToken } });
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
      expect(claims).toMatchObject({
        sub: f.entityId,
        aud: f.app.clientId,
        iss: f.issuerOf(f.provider),
        nonce,
      });
      expect(claims?.auth_time).toEqual(expect.any(Number));
      // ES256: the left half of SHA-256 of the access token and of the code
      const half = (v: string) =>
        createHash('sha256').update(v).digest().subarray(0, 16).toString('base64url');
      expect(claims?.at_hash).toBe(half(tokens.access_token));
      expect(claims?.c_hash).toBe(half(code));
      expect(claims?.['contact']).toEqual({ email: 'alice@example.com', phone_number: '555-0100' });
      expect(tokens.expires_in).toBe(86400);
      const info = await client.fetchUserInfo(config, tokens.access_token, f.entityId);
      expect(info).toMatchObject({
        sub: f.entityId,
        username: expect.any(String),
        meta: { email: 'alice@example.com', phone: '555-0100' },
        contact: { email: 'alice@example.com', phone_number: '555-0100' },
      });
      expect([...(info['groups'] as string[])].sort()).toEqual([...f.groupNames].sort());
    });

    it('oauth4webapi: the same flow with client_secret_post', async () => {
      const issuer = new URL(f.issuerOf(f.provider));
      const insecure = { [oauth.allowInsecureRequests]: true };
      const as = await oauth.processDiscoveryResponse(
        issuer,
        await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...insecure }),
      );
      const rp: oauth.Client = { client_id: f.other.clientId, id_token_signed_response_alg: 'ES256' };
      const verifier = oauth.generateRandomCodeVerifier();
      const nonce = oauth.generateRandomNonce();
      const state = oauth.generateRandomState();
      const auth = await authorize(f.user, f.provider, {
        client_id: f.other.clientId,
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
        oauth.ClientSecretPost(f.other.clientSecret),
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
      expect(claims?.sub).toBe(f.entityId);
      const info = await oauth.processUserInfoResponse(
        as,
        rp,
        f.entityId,
        await oauth.userInfoRequest(as, rp, result.access_token, insecure),
      );
      expect(info).toEqual({
        sub: f.entityId,
        contact: { email: 'alice@example.com', phone_number: '555-0100' },
      });
    });

    it('jose verifies ID tokens of every algorithm through the JWKS, before and after rotation', async () => {
      const name = uniq('multi');
      const clients: Record<string, OidcClientCreds> = {};
      for (const alg of ALGORITHMS) {
        await ok(
          f.root.post(`identity/oidc/key/${alg}-${name}`, { algorithm: alg, allowed_client_ids: '*' }),
        );
        await ok(
          f.root.post(`identity/oidc/client/${alg}-${name}`, {
            key: `${alg}-${name}`,
            redirect_uris: REDIRECT,
            assignments: 'allow_all',
          }),
        );
        clients[alg] = await f.clientCreds(`${alg}-${name}`);
      }
      await ok(f.root.post(`identity/oidc/provider/${name}`, { allowed_client_ids: '*' }));
      const jwksUri = new URL(`${f.issuerOf(name)}/.well-known/keys`);
      const verify = (token: string, alg: string) =>
        jwtVerify(token, createRemoteJWKSet(jwksUri), {
          issuer: f.issuerOf(name),
          audience: clients[alg]!.clientId,
          algorithms: [alg],
        });
      for (const alg of ALGORITHMS) {
        const before = (await f.codeFlow(clients[alg]!, name, 'openid')).res;
        expect(before.status).toBe(200);
        const first: string = before.body.id_token;
        expect((await verify(first, alg)).payload.sub).toBe(f.entityId);
        await ok(f.root.post(`identity/oidc/key/${alg}-${name}/rotate`, {}));
        const after: string = (await f.codeFlow(clients[alg]!, name, 'openid')).res.body.id_token;
        expect(decodeProtectedHeader(after).kid).not.toBe(decodeProtectedHeader(first).kid);
        // a fresh key set: the rotated key is published, the retired one still verifies
        expect((await verify(after, alg)).payload.sub).toBe(f.entityId);
        expect((await verify(first, alg)).payload.sub).toBe(f.entityId);
      }
    });
  });
});
