import { createLocalJWKSet, createRemoteJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { waitFor } from '@coffer/testing';
import {
  authorize,
  exchange,
  expectStatus as ok,
  OIDC_REDIRECT,
  pkcePair,
  replicasInSync,
  replicationStatus,
  uniq,
  type ApiClient,
  type DevServer,
  type OidcClientCreds,
  activateSecondary,
  readAtIndex,
  startReplicatingDevServer,
} from './support';

jest.setTimeout(300_000);

/** the provider's explicit issuer: the name both clusters answer behind (a failover keeps it) */
const ISSUER_BASE = 'https://sso.coffer.test';
const PROVIDER = 'sso';
const ISSUER = `${ISSUER_BASE}/v1/identity/oidc/provider/${PROVIDER}`;

/** What a relying party reads of the provider: its discovery document and JWKS. */
async function published(client: ApiClient): Promise<{ discovery: unknown; jwks: JSONWebKeySet }> {
  const anon = client.withToken(undefined);
  const discovery = await anon.get(`identity/oidc/provider/${PROVIDER}/.well-known/openid-configuration`);
  const jwks = await anon.get(`identity/oidc/provider/${PROVIDER}/.well-known/keys`);
  expect([discovery.status, jwks.status]).toEqual([200, 200]);
  return { discovery: discovery.body, jwks: jwks.body as JSONWebKeySet };
}

/** authorize (S256 PKCE) with `user`'s token, then exchange the code: the ID token */
async function idTokenFrom(cluster: ApiClient, user: ApiClient, creds: OidcClientCreds): Promise<string> {
  const { verifier, challenge } = pkcePair();
  const auth = await authorize(user, PROVIDER, {
    client_id: creds.clientId,
    redirect_uri: OIDC_REDIRECT,
    response_type: 'code',
    scope: 'openid',
    state: 's1',
    nonce: 'n1',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  expect(auth.status).toBe(200);
  const res = await exchange(cluster.withToken(undefined), PROVIDER, creds, {
    grant_type: 'authorization_code',
    code: auth.body.code as string,
    redirect_uri: OIDC_REDIRECT,
    code_verifier: verifier,
  });
  expect(res.status).toBe(200);
  return res.body.id_token as string;
}

/**
 * The OIDC provider on secondaries (docs/replication.md, "Engines on a secondary"), one pair of
 * dev servers: B is first A's performance secondary (it serves A's keys and clients, signs its
 * own codes' ID tokens with A's keys, forwards configuration writes), then A's DR secondary,
 * promoted (it serves A's provider, discovery and JWKS as they were).
 */
describe('the OIDC provider on replication secondaries', () => {
  let a: DevServer;
  let b: DevServer;
  let creds: OidcClientCreds;
  let userpass = '';
  /** alice's token issued by A (DR secondaries take tokens) */
  let aliceOnA: ApiClient;

  beforeAll(async () => {
    const boot = startReplicatingDevServer;
    // one after the other: two dev servers booting at once on a busy machine miss the banner
    a = await boot();
    b = await boot();

    // on A: a user with an entity, an ES256 key, a client and a provider with its own issuer
    userpass = uniq('up');
    await ok(a.client.post(`sys/auth/${userpass}`, { type: 'userpass' }));
    await ok(a.client.post(`auth/${userpass}/users/alice`, { password: 'alice-pw' }));
    const login = await a.client.withToken(undefined).post(`auth/${userpass}/login/alice`, {
      password: 'alice-pw',
    });
    expect(login.status).toBe(200);
    aliceOnA = a.client.withToken(login.body.auth.client_token as string);
    await ok(a.client.post('identity/oidc/key/signer', { algorithm: 'ES256', allowed_client_ids: '*' }));
    await ok(
      a.client.post('identity/oidc/client/app', {
        key: 'signer',
        redirect_uris: [OIDC_REDIRECT],
        assignments: 'allow_all',
        id_token_ttl: '30m',
      }),
    );
    const app = await a.client.get('identity/oidc/client/app');
    creds = { clientId: app.body.data.client_id, clientSecret: app.body.data.client_secret };
    // 200: Vault's warning that every cluster's tokens carry this issuer
    await ok(
      a.client.post(`identity/oidc/provider/${PROVIDER}`, {
        issuer: ISSUER_BASE,
        allowed_client_ids: [creds.clientId],
      }),
      200,
    );
  }, 600_000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it("performance secondary: serves the primary's clients and keys, signs with them, forwards configuration writes", async () => {
    expect((await a.client.post('sys/replication/performance/primary/enable', {})).status).toBe(204);
    await activateSecondary(a.client, b.client, 'performance', 'perf-b');
    await replicasInSync(a.client, b.client, 'performance');

    // the primary's client (with its generated credentials), key and provider, served by B
    for (const path of [
      'identity/oidc/client/app',
      'identity/oidc/key/signer',
      `identity/oidc/provider/${PROVIDER}`,
    ]) {
      const [onA, onB] = [await a.client.get(path), await b.client.get(path)];
      expect([onB.status, onB.body.data]).toEqual([200, onA.body.data]);
    }
    const primary = await published(a.client);
    expect(await published(b.client)).toEqual(primary);

    // alice logs in on B (B's own token) and signs in to the app there: B issues the code and the
    // ID token, signed with the primary's key, so the primary's JWKS verifies it
    const login = await b.client.withToken(undefined).post(`auth/${userpass}/login/alice`, {
      password: 'alice-pw',
    });
    expect(login.status).toBe(200);
    const aliceOnB = b.client.withToken(login.body.auth.client_token as string);
    const idToken = await idTokenFrom(b.client, aliceOnB, creds);
    const jwks = createRemoteJWKSet(
      new URL(`${a.baseUrl}/v1/identity/oidc/provider/${PROVIDER}/.well-known/keys`),
    );
    const { payload } = await jwtVerify(idToken, jwks, { issuer: ISSUER, audience: creds.clientId });
    expect(payload.sub).toBe(login.body.auth.entity_id);

    // a client written through B runs on A, then B serves it once streamed (412 until then)
    const written = await b.client.post('identity/oidc/client/via-secondary', {
      key: 'signer',
      redirect_uris: [OIDC_REDIRECT],
      assignments: 'allow_all',
    });
    expect(written.status).toBe(204);
    const index = written.headers.get('x-service-index') ?? '';
    expect(index).not.toBe('');
    const onA = await a.client.get('identity/oidc/client/via-secondary');
    expect(onA.status).toBe(200);
    const onB = await readAtIndex(b.client, 'identity/oidc/client/via-secondary', index, 'X-Service-Index');
    expect(onB.body.data).toEqual(onA.body.data);
    // a rotation asked on B is the primary's too: both publish the same keys after it
    expect((await b.client.post('identity/oidc/key/signer/rotate', {})).status).toBe(204);
    await replicasInSync(a.client, b.client, 'performance');
    const rotated = await published(a.client);
    expect(rotated.jwks).not.toEqual(primary.jwks);
    expect(await published(b.client)).toEqual(rotated);
    // no forwarding asked: the replicated configuration is read-only there
    const kept = await b.client.post(
      `identity/oidc/client/${uniq('kept')}`,
      { key: 'signer', redirect_uris: [OIDC_REDIRECT] },
      { headers: { 'X-Vault-No-Request-Forwarding': 'true' } },
    );
    expect([kept.status, kept.body.errors]).toEqual([400, ['cannot write to readonly storage']]);
  });

  it("DR secondary promoted: serves the primary's provider, discovery and JWKS; its ID tokens verify with them", async () => {
    expect((await b.client.post('sys/replication/performance/secondary/disable', {})).status).toBe(204);
    expect((await a.client.post('sys/replication/dr/primary/enable', {})).status).toBe(204);
    await activateSecondary(a.client, b.client, 'dr', 'dr-b');
    await ok(
      a.client.post('identity/oidc/scope/profile', { template: '{"name": {{identity.entity.name}}}' }),
    );
    await replicasInSync(a.client, b.client, 'dr');
    const primary = await published(a.client);
    const client = (await a.client.get('identity/oidc/client/app')).body.data;

    const base = 'sys/replication/dr/secondary/generate-operation-token';
    const start = await b.client.post(`${base}/attempt`, {});
    const done = await b.client.post(`${base}/update`, { key: b.unsealKey, nonce: start.body.nonce });
    const decoded = await b.client.post('sys/decode-token', {
      encoded_token: done.body.encoded_token,
      otp: start.body.otp,
    });
    const promoted = await b.client.post('sys/replication/dr/secondary/promote', {
      dr_operation_token: decoded.body.data.token as string,
      force: true,
    });
    expect(promoted.status).toBe(200);
    await waitFor(
      async () => ((await replicationStatus(b.client, 'dr')).mode === 'primary' ? true : undefined),
      { timeoutMs: 30_000, intervalMs: 100 },
    );

    // B: the same discovery, JWKS, client (id and secret), scope
    expect(await published(b.client)).toEqual(primary);
    expect((await b.client.get('identity/oidc/client/app')).body.data).toEqual(client);
    expect((await b.client.get('identity/oidc/scope/profile')).body.data).toMatchObject({
      template: '{"name": {{identity.entity.name}}}',
    });
    // alice's token from A signs her in on B; the ID token verifies with A's published keys
    const aliceOnB = b.client.withToken(aliceOnA.token);
    const idToken = await idTokenFrom(b.client, aliceOnB, creds);
    await jwtVerify(idToken, createLocalJWKSet(primary.jwks), { issuer: ISSUER, audience: creds.clientId });

    // writes after the promotion: to a replayed client, and a rotation of a replayed key
    await ok(b.client.post('identity/oidc/client/app', { id_token_ttl: '45m' }));
    expect((await b.client.get('identity/oidc/client/app')).body.data.id_token_ttl).toBe(2700);
    await ok(b.client.post('identity/oidc/key/signer/rotate', {}));
    const after = await published(b.client);
    expect(after.jwks.keys.length).toBeGreaterThan(primary.jwks.keys.length);
  });
});
