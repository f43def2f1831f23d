import {
  authorize,
  exchange,
  expectStatus as ok,
  OIDC_REDIRECT as REDIRECT,
  pkcePair,
  setUpOidc,
  startCluster,
  startTarget,
  START_TIMEOUT_MS,
  TARGETS,
  uniq,
  userinfo,
  type Cluster,
  type OidcFixture,
} from './support';
import { waitFor } from '@coffer/testing';

jest.setTimeout(120_000);

/**
 * The OIDC provider's refusals: near-miss redirect URIs never redirected to, unknown clients,
 * missing state or nonce, entities outside the assignments, code reuse (revoking what it gave),
 * codes of another client, PKCE downgrades, and access tokens of revoked Coffer tokens.
 */
describe.each(TARGETS)('%s: OIDC provider bad input', (kind) => {
  let f: OidcFixture;
  beforeAll(async () => {
    f = await setUpOidc(await startTarget(kind, { label: 'oidc-bad' }));
  }, START_TIMEOUT_MS);
  afterAll(() => f?.target.stop());

  describe('bad input', () => {
    const base = () => ({
      client_id: f.app.clientId,
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
      const res = await authorize(f.user, f.provider, { ...base(), redirect_uri: uri });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: 'invalid_redirect_uri',
        error_description: 'redirect_uri is not allowed for the client',
        state: '',
      });
    });

    it('never redirects for an unknown client_id; other errors carry the state', async () => {
      const unknown = await authorize(f.user, f.provider, { ...base(), client_id: 'nope' });
      expect(unknown.status).toBe(400);
      expect(unknown.body).toEqual({
        error: 'invalid_client_id',
        error_description: 'client with client_id not found',
        state: '',
      });
      const noNonce = await authorize(f.user, f.provider, { ...base(), nonce: undefined });
      expect(noNonce.body).toEqual({
        error: 'invalid_request',
        error_description: 'nonce parameter is required',
        state: 'st',
      });
      const noState = await authorize(f.user, f.provider, { ...base(), state: undefined });
      expect(noState.body).toMatchObject({
        error: 'invalid_request',
        error_description: 'state parameter is required',
      });
      const noOpenid = await authorize(f.user, f.provider, { ...base(), scope: 'profile' });
      expect(noOpenid.body).toMatchObject({
        error: 'invalid_request',
        error_description: 'scope parameter must contain the "openid" value',
      });
      const maxAge = await authorize(f.user, f.provider, { ...base(), max_age: '0' });
      expect(maxAge.body.error_description).toBe('max_age must be greater than zero');
    });

    it('denies an entity outside the client assignments', async () => {
      const res = await authorize(f.outsider, f.provider, base());
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: 'access_denied',
        error_description: 'identity entity not authorized by client assignment',
        state: 'st',
      });
    });

    it('refuses a reused code and revokes the access token it gave', async () => {
      const { code, verifier, res } = await f.codeFlow(f.app);
      expect(res.status).toBe(200);
      expect((await userinfo(f.target.anon, f.provider, res.body.access_token)).status).toBe(200);
      const again = await exchange(f.target.anon, f.provider, f.app, {
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
      const revoked = await userinfo(f.target.anon, f.provider, res.body.access_token);
      expect(revoked.status).toBe(401);
      expect(revoked.body.error).toBe('invalid_token');
      expect(revoked.headers.get('www-authenticate')).toBe(
        'Bearer error="invalid_token",error_description="access token is expired"',
      );
    });

    it('refuses a code presented by another client (and spends it)', async () => {
      const { verifier, challenge } = pkcePair();
      const code = (
        await authorize(f.user, f.provider, {
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
      const stolen = await exchange(f.target.anon, f.provider, f.other, params);
      expect(stolen.body).toEqual({
        error: 'invalid_grant',
        error_description: 'authorization code was not issued to the client',
      });
      expect((await exchange(f.target.anon, f.provider, f.app, params)).body.error).toBe('invalid_grant');
    });

    it('refuses PKCE downgrades and a wrong client secret', async () => {
      const { challenge } = pkcePair();
      const issue = async () =>
        (
          await authorize(f.user, f.provider, {
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
      expect((await exchange(f.target.anon, f.provider, f.app, params(await issue()))).body).toEqual({
        error: 'invalid_request',
        error_description: 'expected code_verifier for token exchange',
      });
      // the challenge itself as a "plain" verifier
      expect(
        (await exchange(f.target.anon, f.provider, f.app, params(await issue(), challenge))).body,
      ).toEqual({
        error: 'invalid_grant',
        error_description: 'invalid code_verifier for token exchange',
      });
      const plain = (await authorize(f.user, f.provider, base())).body.code as string;
      expect((await exchange(f.target.anon, f.provider, f.app, params(plain, 'x'.repeat(43)))).body).toEqual({
        error: 'invalid_request',
        error_description: 'unexpected code_verifier for token exchange',
      });
      const wrong = await exchange(
        f.target.anon,
        f.provider,
        { ...f.app, clientSecret: 'nope' },
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
      await ok(f.root.post(`sys/auth/${mount}`, { type: 'userpass' }));
      await ok(f.root.post(`auth/${mount}/users/alice2`, { password: 'pw' }));
      const login = await f.target.anon.post(`auth/${mount}/login/alice2`, { password: 'pw' });
      const token: string = login.body.auth.client_token;
      const code = (
        await authorize(f.target.anon.withToken(token), f.provider, {
          ...base(),
          client_id: f.other.clientId,
        })
      ).body.code as string;
      const res = await exchange(f.target.anon, f.provider, f.other, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
      });
      expect(res.status).toBe(200);
      expect((await userinfo(f.target.anon, f.provider, res.body.access_token)).status).toBe(200);
      // userinfo answers POST too (form-encoded, the token still in the header)
      const posted = await f.target.anon.request('POST', `identity/oidc/provider/${f.provider}/userinfo`, {
        raw: '',
        headers: {
          authorization: `Bearer ${res.body.access_token}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        anonymous: true,
      });
      expect(posted.body).toMatchObject({ sub: expect.any(String) });
      await ok(f.root.post('auth/token/revoke', { token }));
      expect((await userinfo(f.target.anon, f.provider, res.body.access_token)).status).toBe(401);
    });
  });
});

describe('cluster: identity/ without a running oidc replica', () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster({ label: 'oidc-down' });
  }, START_TIMEOUT_MS);
  afterAll(() => cluster?.stop());

  it('answers 503 naming the oidc service for its routes, while core-sys serves the rest of identity/', async () => {
    for (const replica of cluster.processes.services['oidc'] ?? []) {
      replica.kill('SIGKILL');
      await replica.exited;
    }
    const discovery = 'identity/oidc/provider/default/.well-known/openid-configuration';
    await waitFor(async () => (await cluster.client.get(discovery)).status === 503, {
      timeoutMs: 10_000,
      intervalMs: 50,
      message: 'waiting for the oidc replicas to be gone',
    });
    expect((await cluster.client.get(discovery)).body).toEqual({
      errors: ['no running replica of the "oidc" service'],
    });
    expect((await cluster.client.list('identity/entity/id')).status).not.toBe(503);
  });
});
