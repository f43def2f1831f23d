import { sql } from 'kysely';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { engineHistoryState } from '@coffer/contracts';
import { oidcContracts as c } from '@coffer/contracts/oidc';
import {
  replicaApplyContract,
  replicaExportContract,
  replicaFoldContract,
  replicaOpenContract,
  replicationModes,
  replicationModesChanged,
  type ReplicationMode,
  type ReplicationModes,
} from '@coffer/contracts/replication';
import {
  EventRegistry,
  EventStore,
  openedReplicaEvent,
  openReplicaPayload,
  openReplicaRows,
} from '@coffer/event-store';
import { DrStandby } from '@coffer/scheduling';
import { waitFor } from '@coffer/testing';
import { OidcKeyRotationSweeper } from '../keys/key-rotation-sweeper';
import { OIDC_SCHEMA } from '../oidc.di';
import { startOidcHarness, type OidcHarness } from '../test-support/oidc-harness';

jest.setTimeout(60_000);

const REDIRECT = 'https://rp.test/cb';
const ISSUER = 'https://sso.coffer.test';
const CALLER = { entityId: 'e-1', tokenRef: 'tok-1', root: false, policies: ['default'] };

/** A secondary cluster: its oidc service, and the replication modes it is told (by the test). */
interface Secondary {
  h: OidcHarness;
  mode: ReplicationMode;
  modes: ReplicationModes;
}

/**
 * Two clusters' oidc services, each with its own database and barrier keyring: the primary's log
 * is shipped as the replication service ships it (rows as stored, payloads opened with the
 * primary's keyring), and a DR and a performance secondary replay it with their own projections.
 * The test answers the replication modes, as it answers core-sys's contracts.
 */
describe('oidc replica: the primary log replayed on a secondary (NATS + Postgres)', () => {
  let primary: OidcHarness;
  let dr: Secondary;
  let perf: Secondary;
  let log: EventStore;
  let clientId = '';
  let clientSecret = '';
  /** the access token of a code redeemed on the primary */
  let primaryAccess = '';

  const startSecondary = async (label: string, mode: ReplicationMode): Promise<Secondary> => {
    const h = await startOidcHarness(label);
    h.entities.set('e-1', { id: 'e-1', name: 'alice', metadata: {}, aliases: [], groups: [] });
    h.liveTokens.set('tok-1', h.clock.now.getTime());
    const s: Secondary = {
      h,
      mode,
      modes: {
        dr: mode === 'dr' ? 'secondary' : 'disabled',
        performance: mode === 'performance' ? 'secondary' : 'disabled',
        performancePrimaryApiAddr: '',
      },
    };
    h.replicas[0]!.client.serve(replicationModes, 'replication', () => Promise.resolve(s.modes));
    // its replication service: opens the replica log's rows with the primary's keyring
    h.replicas[0]!.client.serve(replicaOpenContract, 'replication', (req) =>
      openReplicaRows(h.database.db, req, primary.barrier),
    );
    return s;
  };

  beforeAll(async () => {
    primary = await startOidcHarness('oidc_repl_primary');
    primary.entities.set('e-1', { id: 'e-1', name: 'alice', metadata: {}, aliases: [], groups: [] });
    primary.liveTokens.set('tok-1', primary.clock.now.getTime());
    dr = await startSecondary('oidc_repl_dr', 'dr');
    perf = await startSecondary('oidc_repl_perf', 'performance');
    log = new EventStore({
      db: primary.database.db,
      schema: OIDC_SCHEMA,
      cipher: primary.barrier,
      registry: new EventRegistry([]),
    });

    await primary.call(c.keyWrite, {
      params: { name: 'signer' },
      body: { algorithm: 'ES256', rotation_period: '1h', verification_ttl: '2h', allowed_client_ids: '*' },
    });
    await primary.call(c.keyRotate, { params: { name: 'signer' }, body: {} });
    await primary.call(c.scopeWrite, {
      params: { name: 'profile' },
      body: { template: '{"username": {{identity.entity.name}}}' },
    });
    await primary.call(c.assignmentWrite, { params: { name: 'people' }, body: { entity_ids: 'e-1' } });
    await primary.call(c.clientWrite, {
      params: { name: 'app' },
      body: { key: 'signer', redirect_uris: REDIRECT, assignments: 'people', id_token_ttl: 600 },
    });
    const read = await primary.call(c.clientRead, { params: { name: 'app' } });
    clientId = String(read.data?.['client_id']);
    clientSecret = String(read.data?.['client_secret']);
    await primary.call(c.providerWrite, {
      params: { name: 'sso' },
      body: { issuer: ISSUER, allowed_client_ids: clientId, scopes_supported: 'profile' },
    });
    primaryAccess = (await codeFlow(primary)).access_token;
  });
  afterAll(async () => {
    await primary?.close();
    await dr?.h.close();
    await perf?.h.close();
  });

  /** authorize as alice for `app` on the `sso` provider, then exchange the code */
  async function codeFlow(h: OidcHarness): Promise<{ id_token: string; access_token: string }> {
    const auth = await h.call(
      c.authorizePost,
      {
        params: { name: 'sso' },
        body: {
          client_id: clientId,
          redirect_uri: REDIRECT,
          response_type: 'code',
          scope: 'openid profile',
          state: 's',
          nonce: 'n',
        },
      },
      { caller: CALLER },
    );
    expect(auth.status).toBe(200);
    const basic = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
    const token = await h.call(c.token, {
      params: { name: 'sso' },
      body: {
        grant_type: 'authorization_code',
        code: (auth.body as { code: string }).code,
        redirect_uri: REDIRECT,
      },
      headers: { authorization: basic },
    });
    expect(token.status).toBe(200);
    return token.body as { id_token: string; access_token: string };
  }

  /** One round of the replication service: from the secondary's head to the primary's. */
  async function ship(s: Secondary): Promise<{ lastWal: number; hash: string }> {
    const contract = replicaApplyContract(OIDC_SCHEMA);
    const head = await s.h.replicas[0]!.client.request(contract, { op: 'head' });
    const rows = await log.readRawFrom(head.lastWal, 1000);
    if (rows.length === 0) return head;
    const exported = await primary.replicas[0]!.client.request(replicaExportContract(OIDC_SCHEMA), {
      events: rows.map((r) => ({
        wal: r.wal,
        type: r.type,
        schemaVersion: r.schemaVersion,
        data: openReplicaPayload(primary.barrier, OIDC_SCHEMA, r),
      })),
    });
    // the key material is in the (barrier-encrypted) events: nothing is attached
    expect(exported.attachments).toEqual([]);
    const events = rows.map((r) => openedReplicaEvent(primary.barrier, OIDC_SCHEMA, r));
    return s.h.replicas[0]!.client.request(contract, { op: 'apply', mode: s.mode, events, attachments: {} });
  }

  /** oidc.history.state of `path` (inside identity/) on `h` at `at`, as core-sys asks it. */
  const historyOf = (h: OidcHarness, at: string, path: string) =>
    h.replicas[0]!.client.request(engineHistoryState('oidc'), {
      mount_uuid: h.mount.uuid,
      mount_type: 'identity',
      mount_options: {},
      namespace: '',
      path,
      query: path.split('/').length === 2 ? { list: 'true' } : {},
      at,
      values: false,
    });
  const HISTORY_PATHS = [
    'oidc/scope',
    'oidc/scope/hist',
    'oidc/scope/profile',
    'oidc/client/app',
    'oidc/key/signer',
    'oidc/provider/sso',
    'oidc/assignment/people',
  ];
  /** instants with a history (the primary's clock stamps its events): filled by the history test */
  const instants: string[] = [];
  /** Each of `secondaries` answers the history of HISTORY_PATHS at every instant as the primary does. */
  const historyAsPrimary = async (secondaries: readonly OidcHarness[]) => {
    for (const at of instants) {
      for (const path of HISTORY_PATHS) {
        const expected = await historyOf(primary, at, path);
        for (const h of secondaries) expect(await historyOf(h, at, path)).toEqual(expected);
      }
    }
  };

  /** The promotion fold as the replication service runs it: the replica log, opened, in WAL order. */
  async function fold(s: Secondary): Promise<number> {
    const replica = new EventStore({
      db: s.h.database.db,
      schema: `${OIDC_SCHEMA}_replica`,
      cipher: primary.barrier,
      registry: new EventRegistry([]),
    });
    const rows = await replica.readRawFrom(0, 1000);
    const answer = await s.h.replicas[0]!.client.request(replicaFoldContract(OIDC_SCHEMA), {
      op: 'fold',
      mode: s.mode,
      events: rows.map((r) => ({
        wal: r.wal,
        stream: r.stream,
        streamVersion: r.streamVersion,
        type: r.type,
        schemaVersion: r.schemaVersion,
        data: openReplicaPayload(primary.barrier, OIDC_SCHEMA, r),
      })),
      through: rows.at(-1)?.wal ?? 0,
    });
    return answer.appended;
  }

  const ownStreams = async (h: OidcHarness) =>
    (
      await sql<{ stream: string; version: number }>`
        select stream, max(stream_version)::int as version from oidc.event_log
         group by stream order by stream`.execute(h.database.db)
    ).rows;

  /** what a relying party sees of the provider, and the configuration an operator reads */
  const view = async (h: OidcHarness) => ({
    discovery: (await h.call(c.discovery, { params: { name: 'sso' } })).body,
    jwks: (await h.call(c.keys, { params: { name: 'sso' } })).body,
    key: (await h.call(c.keyRead, { params: { name: 'signer' } })).data,
    keys: (await h.call(c.keyList, {})).data,
    client: (await h.call(c.clientRead, { params: { name: 'app' } })).data,
    provider: (await h.call(c.providerRead, { params: { name: 'sso' } })).data,
    defaultProvider: (await h.call(c.providerRead, { params: { name: 'default' } })).data,
    scope: (await h.call(c.scopeRead, { params: { name: 'profile' } })).data,
    assignment: (await h.call(c.assignmentRead, { params: { name: 'people' } })).data,
  });

  const verifyWith = (jwks: unknown, idToken: string, at: OidcHarness) =>
    jwtVerify(idToken, createLocalJWKSet(jwks as JSONWebKeySet), {
      issuer: `${ISSUER}/v1/identity/oidc/provider/sso`,
      currentDate: at.clock.now,
    });

  /** tells a secondary its new modes, as the replication service does, and waits until it knows */
  async function setModes(s: Secondary, modes: ReplicationModes): Promise<void> {
    s.modes = modes;
    await s.h.replicas[0]!.client.publish(replicationModesChanged, modes);
    const standby = s.h.replicas[0]!.app.get(DrStandby);
    const replicating = modes.dr === 'secondary' || modes.performance === 'secondary';
    await waitFor(async () => ((await standby.replicating()) === replicating ? true : undefined), {
      timeoutMs: 10_000,
      intervalMs: 20,
    });
  }

  it("DR: serves the primary's keys, configuration, codes and access tokens from its own read model", async () => {
    const head = await ship(dr);
    expect(head).toEqual(await log.head());
    const theirs = await view(primary);
    expect(await view(dr.h)).toEqual(theirs);
    // the signer's current, next and rotated keypairs
    expect((theirs.jwks as { keys: unknown[] }).keys).toHaveLength(3);
    // the access token the primary gave is good here too (a DR secondary takes everything)
    const info = await dr.h.call(c.userinfo, {
      params: { name: 'sso' },
      headers: { authorization: `Bearer ${primaryAccess}` },
    });
    expect([info.status, (info.body as { sub?: string }).sub]).toEqual([200, 'e-1']);
    // it wrote nothing of its own: no built-in resources, no rotation even when keys are due
    dr.h.clock.now = new Date(dr.h.clock.now.getTime() + 2 * 3_600_000);
    expect(await dr.h.replicas[0]!.app.get(OidcKeyRotationSweeper).sweep()).toBe(0);
    expect(await ownStreams(dr.h)).toEqual([]);
    // the private keys stay behind this cluster's barrier in the read model
    const dump = (
      await sql<{
        t: string;
      }>`select string_agg(row_to_json(r)::text, ' ') as t from oidc.resources r`.execute(dr.h.database.db)
    ).rows[0]?.t;
    expect(dump).not.toMatch(/"d":"/);
    expect(dump).not.toContain(clientSecret);
  });

  it('performance: serves the configuration; codes are its own, its ID tokens verify with the primary JWKS', async () => {
    await ship(perf);
    const theirs = await view(primary);
    expect(await view(perf.h)).toEqual(theirs);
    // the primary's codes and access tokens stay there
    const info = await perf.h.call(c.userinfo, {
      params: { name: 'sso' },
      headers: { authorization: `Bearer ${primaryAccess}` },
    });
    expect(info.status).toBe(401);
    // the code flow on the secondary: its own code, signed with the primary's replicated key
    const tokens = await codeFlow(perf.h);
    const verified = await verifyWith(theirs.jwks, tokens.id_token, perf.h);
    expect(verified.payload).toMatchObject({ sub: 'e-1', aud: clientId, nonce: 'n', username: 'alice' });
    const local = await perf.h.call(c.userinfo, {
      params: { name: 'sso' },
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(local.status).toBe(200);
    // its own log holds its own code only; the keys rotate on the primary alone
    perf.h.clock.now = new Date(perf.h.clock.now.getTime() + 2 * 3_600_000);
    expect(await perf.h.replicas[0]!.app.get(OidcKeyRotationSweeper).sweep()).toBe(0);
    const own = await ownStreams(perf.h);
    expect(own).toHaveLength(1);
    expect(own[0]?.stream).toMatch(/^oidc-code\//);
  });

  it('applies a redelivered batch once', async () => {
    await primary.call(c.clientWrite, { params: { name: 'app' }, body: { id_token_ttl: 900 } });
    const head = await ship(dr);
    const rows = await log.readRawFrom(head.lastWal - 3, 10);
    const again = await dr.h.replicas[0]!.client.request(replicaApplyContract(OIDC_SCHEMA), {
      op: 'apply',
      mode: 'dr',
      events: rows.map((r) => openedReplicaEvent(primary.barrier, OIDC_SCHEMA, r)),
      attachments: {},
    });
    expect(again).toEqual(head);
    expect((await dr.h.call(c.clientRead, { params: { name: 'app' } })).data).toMatchObject({
      id_token_ttl: 900,
      client_id: clientId,
    });
  });

  it("answers the history of the primary's configuration on both secondaries as the primary does", async () => {
    const start = primary.clock.now.getTime();
    const at = (ms: number) => new Date(start + ms).toISOString();
    instants.push(at(-1), at(0));
    const hist = (description: string) =>
      primary.call(c.scopeWrite, { params: { name: 'hist' }, body: { template: '{"h":"x"}', description } });
    primary.clock.now = new Date(start + 3_600_000);
    await hist('first');
    primary.clock.now = new Date(start + 7_200_000);
    await hist('second');
    instants.push(at(1_800_000), at(3_600_000), at(5_400_000), at(7_200_000));
    await ship(dr);
    await ship(perf);
    await historyAsPrimary([dr.h, perf.h]);
    expect((await historyOf(perf.h, at(1_800_000), 'oidc/scope/hist')).found).toBe(false);
    expect((await historyOf(perf.h, at(5_400_000), 'oidc/scope/hist')).state).toMatchObject({
      description: 'first',
    });
    expect((await historyOf(dr.h, at(7_200_000), 'oidc/scope/hist')).state).toMatchObject({
      description: 'second',
    });
  });

  it('folds at promotion what it projected, once; then writes and rotates keys as a primary', async () => {
    await ship(perf);
    const onPrimary = await ownStreams(primary);
    const configStreams = onPrimary.filter((s) => s.stream.startsWith('oidc-config/'));
    const configEvents = configStreams.reduce((n, s) => n + s.version, 0);

    // DR: every stream, at the primary's versions
    expect(await fold(dr)).toBe(onPrimary.reduce((n, s) => n + s.version, 0));
    expect(await fold(dr)).toBe(0);
    expect(await ownStreams(dr.h)).toEqual(onPrimary);
    // performance: the configuration only, beside its own code
    expect(await fold(perf)).toBe(configEvents);
    expect(await fold(perf)).toBe(0);
    expect((await ownStreams(perf.h)).filter((s) => s.stream.startsWith('oidc-config/'))).toEqual(
      configStreams,
    );

    // promoted: the DR cluster writes to the folded streams at their versions
    await setModes(dr, { dr: 'primary', performance: 'disabled', performancePrimaryApiAddr: '' });
    await dr.h.call(c.clientWrite, { params: { name: 'app' }, body: { id_token_ttl: 1200 } });
    expect((await dr.h.call(c.clientRead, { params: { name: 'app' } })).data).toMatchObject({
      id_token_ttl: 1200,
      client_id: clientId,
    });
    const before = (await dr.h.call(c.keys, { params: { name: 'sso' } })).body as { keys: { kid: string }[] };
    await dr.h.call(c.keyRotate, { params: { name: 'signer' }, body: {} });
    const after = (await dr.h.call(c.keys, { params: { name: 'sso' } })).body as { keys: { kid: string }[] };
    expect(after.keys.map((k) => k.kid)).toEqual(expect.arrayContaining(before.keys.map((k) => k.kid)));
    expect(after.keys.length).toBeGreaterThan(before.keys.length);
    // a token minted on the promoted cluster verifies with the keys the old primary published
    // (its current key was the primary's next one) and with its own JWKS
    const tokens = await codeFlow(dr.h);
    await verifyWith(after, tokens.id_token, dr.h);
    await verifyWith(before, tokens.id_token, dr.h);
    // history after the fold: the primary's events at their own times, then the cluster's own writes
    await historyAsPrimary([dr.h, perf.h]);
    const now = dr.h.clock.now.toISOString();
    expect((await historyOf(dr.h, now, 'oidc/client/app')).state).toMatchObject({ id_token_ttl: 1200 });
  });

  it('wipes its data when enabled as a secondary anew, and replays it again', async () => {
    const head = await dr.h.replicas[0]!.client.request(replicaApplyContract(OIDC_SCHEMA), { op: 'wipe' });
    expect(head.lastWal).toBe(0);
    await setModes(dr, { dr: 'secondary', performance: 'disabled', performancePrimaryApiAddr: '' });
    expect((await dr.h.call(c.clientRead, { params: { name: 'app' } })).data).toBeNull();
    await ship(dr);
    // at the primary's time: the JWKS keeps a rotated key for its verification TTL
    dr.h.clock.now = primary.clock.now;
    expect(await view(dr.h)).toEqual(await view(primary));
  });
});
