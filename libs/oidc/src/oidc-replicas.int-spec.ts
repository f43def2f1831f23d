import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { oidcContracts as c } from '@coffer/contracts/oidc';
import { GrantPurgeSweeper } from './grants/grant-purge-sweeper';
import { OidcKeyService } from './keys/oidc-key.service';
import { startOidcHarness, type OidcHarness } from './test-support/oidc-harness';

const REDIRECT = 'https://rp.test/cb';

/** Two oidc replicas on one database: key rotation on time, single-use codes, nothing in clear. */
describe('oidc replicas (Postgres + NATS)', () => {
  let h: OidcHarness;
  let clientId = '';
  let clientSecret = '';

  beforeAll(async () => {
    h = await startOidcHarness('oidc_replicas', 2);
    h.entities.set('e-1', { id: 'e-1', name: 'alice', metadata: {}, aliases: [], groups: [] });
    h.liveTokens.set('tok-1', h.clock.now.getTime());
    await h.call(c.keyWrite, {
      params: { name: 'k' },
      body: { algorithm: 'ES256', rotation_period: '1m', verification_ttl: '2m', allowed_client_ids: '*' },
    });
    await h.call(c.clientWrite, {
      params: { name: 'app' },
      body: { key: 'k', redirect_uris: REDIRECT, assignments: 'allow_all', id_token_ttl: 60 },
    });
    const read = await h.call(c.clientRead, { params: { name: 'app' } }, { replica: 1 });
    clientId = String(read.data?.['client_id']);
    clientSecret = String(read.data?.['client_secret']);
  });
  afterAll(() => h?.close());

  const keyEvents = async () =>
    (
      await sql<{
        type: string;
      }>`select type from oidc.event_log where stream = 'oidc-config/key/-/k' order by stream_version`.execute(
        h.database.db,
      )
    ).rows.map((r) => r.type);

  /** authorize as an entity (its Coffer token's ref) for a client of the default provider */
  const authorizeAs = (caller: { entityId: string; tokenRef: string }, client: string, extra: object = {}) =>
    h.call(
      c.authorizePost,
      {
        params: { name: 'default' },
        body: {
          client_id: client,
          redirect_uri: REDIRECT,
          response_type: 'code',
          scope: 'openid',
          state: 's',
          nonce: 'n',
          ...extra,
        },
      },
      { caller },
    );

  it('rotates a due key once although every replica checks, and keeps the schedule across restarts', async () => {
    const keys = (i: number) => h.replicas[i]!.app.get(OidcKeyService);
    expect(await keys(0).rotateDue()).toBe(0);
    h.clock.now = new Date(h.clock.now.getTime() + 61_000);
    const rotated = await Promise.all([keys(0).rotateDue(), keys(1).rotateDue(), keys(0).rotateDue()]);
    expect(rotated.reduce((a, b) => a + b, 0)).toBe(1);
    expect(await keyEvents()).toEqual(['OidcKeyWritten', 'OidcKeyRotated']);
    // a replica started later reads the schedule from the database
    await h.addReplica();
    h.clock.now = new Date(h.clock.now.getTime() + 61_000);
    expect(await keys(2).rotateDue()).toBe(1);
    expect(await keyEvents()).toEqual(['OidcKeyWritten', 'OidcKeyRotated', 'OidcKeyRotated']);
  });

  it('admits members of an assignment group, and enforces max_age on the token creation time', async () => {
    h.entities.set('e-2', {
      id: 'e-2',
      name: 'bob',
      metadata: {},
      aliases: [],
      groups: [{ id: 'g-1', name: 'eng' }],
    });
    h.liveTokens.set('tok-old', h.clock.now.getTime() - 3_600_000);
    await h.call(c.assignmentWrite, { params: { name: 'eng' }, body: { group_ids: 'G-1' } });
    await h.call(c.clientWrite, {
      params: { name: 'eng-app' },
      body: { key: 'k', redirect_uris: REDIRECT, assignments: 'eng', id_token_ttl: 60 },
    });
    const engId = String((await h.call(c.clientRead, { params: { name: 'eng-app' } })).data?.['client_id']);
    const authorize = (caller: { entityId: string; tokenRef: string }, extra: object = {}) =>
      authorizeAs(caller, engId, extra);
    expect((await authorize({ entityId: 'e-2', tokenRef: 'tok-old' })).status).toBe(200);
    expect((await authorize({ entityId: 'e-1', tokenRef: 'tok-1' })).body).toMatchObject({
      error: 'access_denied',
    });
    expect((await authorize({ entityId: 'e-2', tokenRef: 'tok-old' }, { max_age: 60 })).body).toEqual({
      error: 'max_age_violation',
      error_description: 'active re-authentication is required by max_age',
      state: 's',
    });
    expect((await authorize({ entityId: 'e-2', tokenRef: 'tok-old' }, { max_age: 7200 })).status).toBe(200);
    expect((await authorize({ entityId: 'e-2', tokenRef: 'gone' })).body).toMatchObject({
      error: 'access_denied',
      error_description: 'token associated with request not found',
    });
  });

  it('lets one of two concurrent exchanges of a code win, and the replay revokes its token', async () => {
    const caller = { entityId: 'e-1', tokenRef: 'tok-1', root: false, policies: ['default'] };
    const auth = await authorizeAs(caller, clientId);
    const code = (auth.body as { code: string }).code;
    const basic = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
    const exchange = (replica: number) =>
      h.call(
        c.token,
        {
          params: { name: 'default' },
          body: { grant_type: 'authorization_code', code, redirect_uri: REDIRECT },
          headers: { authorization: basic },
        },
        { replica },
      );
    const answers = await Promise.all([exchange(0), exchange(1)]);
    const won = answers.filter((a) => a.status === 200);
    expect(won).toHaveLength(1);
    expect(answers.find((a) => a.status === 400)?.body).toEqual({
      error: 'invalid_grant',
      error_description: 'authorization grant is invalid or expired',
    });
    const token = (won[0]!.body as { access_token: string }).access_token;
    // a code left unused past its five minutes is refused
    const late = await authorizeAs(caller, clientId);
    h.clock.now = new Date(h.clock.now.getTime() + 5 * 60_000 + 1);
    h.liveTokens.set('tok-1', h.clock.now.getTime());
    const expired = await h.call(c.token, {
      params: { name: 'default' },
      body: {
        grant_type: 'authorization_code',
        code: (late.body as { code: string }).code,
        redirect_uri: REDIRECT,
      },
      headers: { authorization: basic },
    });
    expect(expired.body).toEqual({
      error: 'invalid_grant',
      error_description: 'authorization grant is invalid or expired',
    });
    const info = await h.call(c.userinfo, {
      params: { name: 'default' },
      headers: { authorization: `Bearer ${token}` },
    });
    expect(info.status).toBe(401);

    // nothing secret in clear in the schema: client secret, private keys, code, access token
    const dump = (
      await sql<{ t: string }>`
        select string_agg(x::text, ' ') as t from (
          select row_to_json(r)::text as x from oidc.resources r
          union all select row_to_json(k)::text from oidc.codes k
          union all select row_to_json(a)::text from oidc.access_tokens a
          union all select encode(payload, 'escape') from oidc.event_log) s`.execute(h.database.db)
    ).rows[0]?.t;
    expect(dump).toBeDefined();
    for (const secret of [clientSecret, code, token, createHash('sha256').update(code).digest('base64url')])
      expect(dump).not.toContain(secret);
    expect(dump).not.toMatch(/"d":"/);
  });

  it('purges expired codes and access tokens from the read model, keeping codes a live token came from', async () => {
    const rows = async () =>
      (
        await sql<{ codes: number; tokens: number }>`
          select (select count(*) from oidc.codes)::int as codes,
                 (select count(*) from oidc.access_tokens)::int as tokens`.execute(h.database.db)
      ).rows[0];
    const before = await rows();
    expect(before?.tokens).toBeGreaterThan(0);
    const purge = h.replicas[0]!.app.get(GrantPurgeSweeper);
    // codes are expired by now, but their access tokens (24h) are not: nothing goes but unused codes
    await purge.sweep();
    expect((await rows())?.tokens).toBe(before?.tokens);
    h.clock.now = new Date(h.clock.now.getTime() + 86_400_000 + 1);
    expect(await purge.sweep()).toBeGreaterThan(0);
    expect(await rows()).toEqual({ codes: 0, tokens: 0 });
  });
});
