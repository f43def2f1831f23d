import { httpJson } from '../../test/support/launch/bootstrap';
import { mustWrite } from '../lib/coffer';
import { runScenario, type BenchSuite, type CofferTarget } from '../lib/suite';

const REDIRECT = 'https://rp.bench/callback';
const PROVIDER = 'bench';

interface OidcBench {
  userToken: string;
  clientId: string;
  /** client_secret_basic header of the client */
  basic: string;
}

/** An ES256 key, a client and provider, and a userpass user whose token authorizes. */
async function prepareOidc(target: CofferTarget): Promise<OidcBench> {
  const up = `bench-oidc-${Date.now().toString(36)}`;
  await mustWrite(target, `sys/auth/${up}`, { type: 'userpass' });
  await mustWrite(target, `auth/${up}/users/rp`, { password: 'bench-pw' });
  const login = await httpJson('POST', `${target.baseUrl}/v1/auth/${up}/login/rp`, {
    body: { password: 'bench-pw' },
  });
  const userToken = (login.body as { auth?: { client_token?: string } }).auth?.client_token;
  if (!userToken) throw new Error(`bench set-up: userpass login answered ${login.status}`);
  await mustWrite(target, 'identity/oidc/key/bench-es256', { algorithm: 'ES256', allowed_client_ids: '*' });
  await mustWrite(target, 'identity/oidc/scope/bench', {
    template: '{"username": {{identity.entity.name}}}',
  });
  await mustWrite(target, 'identity/oidc/client/bench', {
    key: 'bench-es256',
    redirect_uris: REDIRECT,
    assignments: 'allow_all',
    id_token_ttl: '1h',
  });
  await mustWrite(target, `identity/oidc/provider/${PROVIDER}`, {
    allowed_client_ids: '*',
    scopes_supported: 'bench',
  });
  const client = await httpJson('GET', `${target.baseUrl}/v1/identity/oidc/client/bench`, {
    token: target.rootToken,
  });
  const data = (client.body as { data: { client_id: string; client_secret: string } }).data;
  const basic = `Basic ${Buffer.from(`${data.client_id}:${data.client_secret}`).toString('base64')}`;
  return { userToken, clientId: data.client_id, basic };
}

/**
 * The OIDC provider: authorization codes issued per second (each a single-use code the token
 * scenario then spends), token exchanges per second with an ES256 key (ID token signed, access
 * token issued, code redeemed), and userinfo calls per second.
 */
export const oidcSuite: BenchSuite = {
  name: 'oidc',
  targets: [],
  async run(target, shape, log) {
    const bench = await prepareOidc(target);
    const authorizeBody = JSON.stringify({
      client_id: bench.clientId,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'openid bench',
      state: 'bench-state',
      nonce: 'bench-nonce',
    });
    const codes: string[] = [];
    // twice as long as the exchange scenario: the exchanges must not run out of unspent codes
    const pool = { ...shape, durationSeconds: shape.durationSeconds * 2 };
    const authorize = await runScenario(target, pool, log, 'OIDC authorize (code issued)', {
      method: 'POST',
      body: authorizeBody,
      headers: { 'x-vault-token': bench.userToken },
      path: () => `/v1/identity/oidc/provider/${PROVIDER}/authorize`,
      onResponse: (status, body) => {
        if (status === 200) codes.push((JSON.parse(body) as { code: string }).code);
      },
    });
    // each exchange spends one code of the authorize scenario; when they run out, answers are 400s
    const exchange = await runScenario(target, shape, log, 'OIDC token exchange (ES256)', {
      method: 'POST',
      contentType: 'application/x-www-form-urlencoded',
      headers: { authorization: bench.basic },
      body: (n) =>
        new URLSearchParams({
          grant_type: 'authorization_code',
          code: codes[n] ?? 'spent',
          redirect_uri: REDIRECT,
        }).toString(),
      path: () => `/v1/identity/oidc/provider/${PROVIDER}/token`,
    });
    if (exchange.summary.non2xx > 0)
      log(`  (${exchange.summary.non2xx} exchanges found no unspent code left)`);
    const one = await httpJson('POST', `${target.baseUrl}/v1/identity/oidc/provider/${PROVIDER}/authorize`, {
      token: bench.userToken,
      body: JSON.parse(authorizeBody) as unknown,
    });
    const code = (one.body as { code: string }).code;
    const token = await fetch(`${target.baseUrl}/v1/identity/oidc/provider/${PROVIDER}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: bench.basic },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
      }).toString(),
    });
    const accessToken = ((await token.json()) as { access_token: string }).access_token;
    const userinfo = await runScenario(target, shape, log, 'OIDC userinfo', {
      headers: { authorization: `Bearer ${accessToken}` },
      path: () => `/v1/identity/oidc/provider/${PROVIDER}/userinfo`,
    });
    return [authorize, exchange, userinfo];
  },
};
