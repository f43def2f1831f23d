import { waitFor, historyInstant } from '@coffer/testing';
import {
  replicasInSync,
  replicationStatus,
  uniq,
  type ApiClient,
  type DevServer,
  type ReplicationMode,
  type ReplicationStatus,
  activateSecondary,
  parsePrometheusText,
  readAtIndex,
  startReplicatingDevServer,
} from './support';

jest.setTimeout(600_000);

type Mode = ReplicationMode;

const status = replicationStatus;

async function inSync(primary: ApiClient, secondary: ApiClient, mode: Mode): Promise<ReplicationStatus> {
  return (await replicasInSync(primary, secondary, mode)).secondary;
}

/**
 * The secondary's copy of a log (`logs[1]`) and the primary's log (`logs[0]`) at the copy's size:
 * the same root (each cluster signs it with its own history key) and the same inclusion proofs of
 * the first, middle and last event. Answers the size.
 */
async function sameTree(primary: ApiClient, secondary: ApiClient, logs: [string, string]): Promise<number> {
  const copy = await secondary.get('sys/history/tree-head', { query: { log: logs[1] } });
  const size = copy.body.data.tree_size as number;
  const original = await primary.get('sys/history/tree-head', { query: { log: logs[0], tree_size: size } });
  expect([original.status, copy.status]).toEqual([200, 200]);
  expect(copy.body.data.root_hash).toBe(original.body.data.root_hash);
  for (const wal of [1, Math.ceil(size / 2), size]) {
    const onPrimary = await primary.get('sys/history/proof', {
      query: { log: logs[0], wal, tree_size: size },
    });
    const onSecondary = await secondary.get('sys/history/proof', {
      query: { log: logs[1], wal, tree_size: size },
    });
    expect([onPrimary.status, onSecondary.status]).toEqual([200, 200]);
    const { leaf_index, audit_path, root_hash } = onPrimary.body.data as Record<string, unknown>;
    expect(onSecondary.body.data).toMatchObject({ leaf_index, audit_path, root_hash });
  }
  return size;
}

/** sys/history/state of a path at `at`: what of it both clusters should answer alike. */
async function historyAt(client: ApiClient, path: string, at: string) {
  const res = await client.get(`sys/history/state/${path}`, { query: { at } });
  return { status: res.status, state: res.body.data?.state, engineWal: res.body.data?.engine_wal };
}

/** The primary's write-forwarding counters (sys/metrics): forwarding connections, writes run. */
async function forwardingCounts(server: DevServer): Promise<{ connections: number; writes: number }> {
  const res = await server.client.get('sys/metrics', { query: { format: 'prometheus' } });
  expect(res.status).toBe(200);
  const metrics = parsePrometheusText(res.text);
  return {
    connections: metrics.value('coffer_replication_cluster_connections_total', { kind: 'forwarding' }) ?? 0,
    writes: metrics.value('coffer_replication_forwarded_writes_total', { outcome: 'ok' }) ?? 0,
  };
}

/** Three dev servers: a primary of both sets, its DR secondary and its performance secondary. */
describe('three clusters: primary, DR secondary, performance secondary', () => {
  let primary: DevServer;
  let dr: DevServer;
  let perf: DevServer;
  let sharedSecret = '';
  /** a token issued on the primary (a policy of the primary's), used on the promoted DR secondary */
  let primaryToken = '';
  /** a userpass user of the primary and its policy, checked on every cluster */
  let primaryUser = '';
  let primaryPolicy = '';

  beforeAll(async () => {
    const boot = startReplicatingDevServer;
    // one after the other: three dev servers booting at once on a busy machine miss the banner
    primary = await boot();
    dr = await boot();
    perf = await boot();
  }, 600_000);
  afterAll(async () => {
    await Promise.all([primary?.stop(), dr?.stop(), perf?.stop()]);
  });

  it('streams one primary to both secondaries, each with its own role', async () => {
    expect((await primary.client.post('sys/replication/dr/primary/enable', {})).status).toBe(204);
    expect((await primary.client.post('sys/replication/performance/primary/enable', {})).status).toBe(204);
    await activateSecondary(primary.client, dr.client, 'dr', 'dr-1');
    await activateSecondary(primary.client, perf.client, 'performance', 'perf-1');

    // a kv v2 secret written on the primary, read over HTTP on both secondaries below
    const secret = `secret/data/${uniq('shared')}`;
    expect((await primary.client.post(secret, { data: { team: 'blue' } })).status).toBe(200);
    sharedSecret = secret;
    // a kv v2 secret with a history: an instant before it, between its two versions, after them
    const history = uniq('history');
    const historyInstants = [await historyInstant()];
    for (const v of [1, 2]) {
      expect((await primary.client.post(`secret/data/${history}`, { data: { v } })).status).toBe(200);
      historyInstants.push(await historyInstant());
    }
    let index = '';
    for (let i = 0; i < 15; i += 1) {
      const res = await primary.client.post(`secret/data/${uniq('three')}`, { data: { n: i } });
      expect(res.status).toBe(200);
      index = res.headers.get('x-service-index') ?? '';
    }
    expect(index).not.toBe('');
    const drSide = await inSync(primary.client, dr.client, 'dr');
    const perfSide = await inSync(primary.client, perf.client, 'performance');
    // both replicas hold the same history of every log
    expect(perfSide.merkle_root).toBe(drSide.merkle_root);

    // the DR secondary: 472, no client requests
    expect((await dr.client.withToken(undefined).get('sys/health')).status).toBe(472);
    expect((await dr.client.get('sys/mounts')).status).toBe(400);
    // the performance secondary: serves requests, reads at the primary's index
    const health = await perf.client.withToken(undefined).get<Record<string, unknown>>('sys/health');
    expect(health.status).toBe(200);
    expect(health.body.replication_performance_mode).toBe('secondary');
    expect((await perf.client.get('sys/mounts')).status).toBe(200);
    // core-sys's mount table replays there: the primary's kv data is served under the primary's
    // mount, to a token of the secondary's own (tokens stay local on a performance secondary)
    const mounts = await perf.client.get('sys/mounts');
    const primaryMounts = await primary.client.get('sys/mounts');
    expect(mounts.body.data['secret/'].uuid).toBe(primaryMounts.body.data['secret/'].uuid);
    const served = await perf.client.get(secret);
    expect([served.status, served.body.data?.data]).toEqual([200, { team: 'blue' }]);
    const read = await perf.client.get('secret/data/anything', { headers: { 'X-Service-Index': index } });
    expect(read.status).not.toBe(412);
    // its history is the primary's: kv_replica's events opened by the replication service there
    for (const at of historyInstants) {
      for (const path of [`secret/data/${history}`, `secret/metadata/${history}`]) {
        expect(await historyAt(perf.client, path, at)).toEqual(await historyAt(primary.client, path, at));
      }
    }
    const between = await historyAt(perf.client, `secret/data/${history}`, historyInstants[1] ?? '');
    expect([between.status, between.state?.data]).toEqual([200, { v: 1 }]);
  });

  it('forwards kv writes on the performance secondary to the primary, with its index for read-after-write', async () => {
    // create: runs on the primary, which answers its X-Service-Index (and Vault's name)
    const path = `secret/data/${uniq('forwarded')}`;
    const written = await perf.client.post(path, { data: { origin: 'perf' } });
    expect(written.status).toBe(200);
    expect(written.body.data.version).toBe(1);
    const index = written.headers.get('x-service-index') ?? '';
    expect(index).not.toBe('');
    expect(written.headers.get('x-vault-index')).toBe(index);
    const onPrimary = await primary.client.get(path);
    expect([onPrimary.status, onPrimary.body.data?.data]).toEqual([200, { origin: 'perf' }]);
    // the secondary, asked with the index: 412 until it has streamed the write, then the value
    const local = await readAtIndex(perf.client, path, index);
    expect(local.body.data.data).toEqual({ origin: 'perf' });

    // patch and delete are forwarded too
    const patched = await perf.client.patch(path, { data: { more: 1 } });
    expect(patched.status).toBe(200);
    expect((await primary.client.get(path)).body.data.data).toEqual({ origin: 'perf', more: 1 });
    expect((await perf.client.delete(path)).status).toBe(204);
    expect((await primary.client.get(path)).status).toBe(404);

    // the client asked for no forwarding: the secondary's storage is read-only for replicated data
    const kept = await perf.client.post(
      `secret/data/${uniq('kept')}`,
      { data: { n: 1 } },
      { headers: { 'X-Vault-No-Request-Forwarding': 'true' } },
    );
    expect([kept.status, kept.body.errors]).toEqual([400, ['cannot write to readonly storage']]);

    // concurrent writes share the secondary's pooled connection: at most one new handshake
    const before = await forwardingCounts(primary);
    const many = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        perf.client.post(`secret/data/${uniq(`pooled-${i}`)}`, { data: { i } }),
      ),
    );
    expect(many.map((r) => r.status)).toEqual(many.map(() => 200));
    const after = await forwardingCounts(primary);
    expect(after.writes - before.writes).toBe(20);
    expect(after.connections - before.connections).toBeLessThanOrEqual(1);
  });

  it('forwards writes to replicated core-sys data to the primary; local mounts stay on the secondary', async () => {
    // an ACL policy written on the secondary runs on the primary, with core-sys's index
    const policy = uniq('fwd-reader');
    const rules = 'path "secret/data/*" { capabilities = ["read"] }';
    const defined = await perf.client.put(`sys/policies/acl/${policy}`, { policy: rules });
    expect(defined.status).toBe(204);
    const policyIndex = defined.headers.get('x-service-index') ?? '';
    expect(policyIndex).not.toBe('');
    expect((await primary.client.get(`sys/policies/acl/${policy}`)).body.data?.policy).toBe(rules);
    const streamed = await readAtIndex(perf.client, `sys/policies/acl/${policy}`, policyIndex);
    expect(streamed.body.data.policy).toBe(rules);

    // an auth method and a kv mount (not local) enabled on the secondary: the primary's
    const up = uniq('up-fwd');
    const kvMount = uniq('kv-fwd');
    expect((await perf.client.post(`sys/auth/${up}`, { type: 'userpass' })).status).toBe(204);
    const enabled = await perf.client.post(`sys/mounts/${kvMount}`, {
      type: 'kv',
      options: { version: '2' },
    });
    expect(enabled.status).toBe(204);
    expect((await primary.client.get('sys/auth')).body.data[`${up}/`]?.type).toBe('userpass');
    const primaryKv = (await primary.client.get('sys/mounts')).body.data[`${kvMount}/`];
    expect(primaryKv?.type).toBe('kv');
    // once streamed, the secondary serves them under the primary's uuids
    const mountIndex = enabled.headers.get('x-service-index') ?? '';
    const onPerf = await readAtIndex(perf.client, `sys/mounts/${kvMount}`, mountIndex);
    expect(onPerf.body.data.uuid).toBe(primaryKv.uuid);

    // a user of that auth method, written on the secondary, exists on the primary, then logs in
    // on the secondary (the login is the secondary's own: it issues the token)
    const user = uniq('carol');
    const written = await perf.client.post(`auth/${up}/users/${user}`, {
      password: 'pw-of-carol',
      token_policies: policy,
    });
    expect(written.status).toBe(204);
    expect((await primary.client.get(`auth/${up}/users/${user}`)).status).toBe(200);
    await readAtIndex(perf.client, `auth/${up}/users/${user}`, written.headers.get('x-service-index') ?? '');
    const login = await perf.client
      .withToken(undefined)
      .post(`auth/${up}/login/${user}`, { password: 'pw-of-carol' });
    expect(login.status).toBe(200);
    expect(login.body.auth.policies).toContain(policy);
    // her entity is the primary's (as Vault, the secondary registers it there), and streams back
    const entityId = String(login.body.auth.entity_id ?? '');
    expect(entityId).not.toBe('');
    const entity = await primary.client.get(`identity/entity/id/${entityId}`);
    expect(entity.status).toBe(200);
    expect(entity.body.data.aliases).toEqual([expect.objectContaining({ name: user })]);
    await waitFor(async () => (await perf.client.get(`identity/entity/id/${entityId}`)).status === 200, {
      timeoutMs: 20_000,
      intervalMs: 50,
    });
    // a second login finds it there
    const again = await perf.client
      .withToken(undefined)
      .post(`auth/${up}/login/${user}`, { password: 'pw-of-carol' });
    expect(again.body.auth.entity_id).toBe(entityId);
    // the secondary's token: unknown to the primary
    const carol = login.body.auth.client_token as string;
    expect((await primary.client.withToken(carol).get('auth/token/lookup-self')).status).toBe(403);
    expect((await perf.client.withToken(carol).get(sharedSecret)).status).toBe(200);

    // kv data in the forwarded mount: forwarded as any kv write
    const data = await perf.client.post(`${kvMount}/data/app`, { data: { k: 'v' } });
    expect(data.status).toBe(200);
    expect((await primary.client.get(`${kvMount}/data/app`)).body.data?.data).toEqual({ k: 'v' });

    // a local mount is the secondary's own: enabled, tuned and disabled there, never on the primary
    const mine = uniq('local-kv');
    expect((await perf.client.post(`sys/mounts/${mine}`, { type: 'kv', local: true })).status).toBe(204);
    expect((await perf.client.get('sys/mounts')).body.data[`${mine}/`]?.local).toBe(true);
    expect(
      (
        await perf.client.post(
          `sys/mounts/${mine}/tune`,
          { max_lease_ttl: '2h' },
          {
            headers: { 'X-Vault-No-Request-Forwarding': 'true' },
          },
        )
      ).status,
    ).toBe(204);
    await inSync(primary.client, perf.client, 'performance');
    expect((await primary.client.get('sys/mounts')).body.data[`${mine}/`]).toBeUndefined();
    expect((await perf.client.get('sys/mounts')).body.data[`${mine}/`]?.local).toBe(true);
    expect((await perf.client.delete(`sys/mounts/${mine}`)).status).toBe(204);

    // no forwarding asked: replicated core-sys storage is read-only there
    const kept = await perf.client.put(
      `sys/policies/acl/${uniq('kept')}`,
      { policy: rules },
      { headers: { 'X-Vault-No-Request-Forwarding': 'true' } },
    );
    expect([kept.status, kept.body.errors]).toEqual([400, ['cannot write to readonly storage']]);
  });

  it('serves writes to a local kv v2 mount and to cubbyhole on the performance secondary, never on the primary', async () => {
    const mine = uniq('local-kv2');
    const enabled = await perf.client.post(`sys/mounts/${mine}`, {
      type: 'kv',
      local: true,
      options: { version: '2' },
    });
    expect(enabled.status).toBe(204);
    // served there, in the secondary's own kv log: no index of the primary's
    const first = await perf.client.post(`${mine}/data/app`, { data: { k: 'local' } });
    expect([first.status, first.body.data?.version]).toEqual([200, 1]);
    expect(first.headers.get('x-service-index')).toBeNull();
    const second = await perf.client.post(`${mine}/data/app`, {
      data: { k: 'local-2' },
      options: { cas: 1 },
    });
    expect([second.status, second.body.data?.version]).toEqual([200, 2]);
    const read = await perf.client.get(`${mine}/data/app`);
    expect([read.status, read.body.data?.data]).toEqual([200, { k: 'local-2' }]);
    expect((await perf.client.get(`${mine}/data/app`, { query: { version: 1 } })).body.data?.data).toEqual({
      k: 'local',
    });
    // cubbyhole is the secondary's own too (its tokens')
    expect((await perf.client.post('cubbyhole/note', { n: 'perf' })).status).toBe(204);
    const note = await perf.client.get('cubbyhole/note');
    expect([note.status, note.body.data]).toEqual([200, { n: 'perf' }]);

    // a replicated mount's write is still forwarded, and read back on the secondary at its index
    const path = `secret/data/${uniq('next-to-local')}`;
    const forwarded = await perf.client.post(path, { data: { origin: 'perf' } });
    expect(forwarded.status).toBe(200);
    const index = forwarded.headers.get('x-service-index') ?? '';
    expect(index).not.toBe('');
    expect((await readAtIndex(perf.client, path, index)).body.data.data).toEqual({ origin: 'perf' });

    // nothing of it on the primary; both secondaries hold the same copy of the primary's logs
    await inSync(primary.client, perf.client, 'performance');
    const drSide = await inSync(primary.client, dr.client, 'dr');
    expect((await status(perf.client, 'performance')).merkle_root).toBe(drSide.merkle_root);
    expect((await primary.client.get('sys/mounts')).body.data[`${mine}/`]).toBeUndefined();
    expect((await primary.client.get('cubbyhole/note')).status).toBe(404);
    expect((await perf.client.get(`${mine}/data/app`)).status).toBe(200);
    // disabled there: its data is purged there
    expect((await perf.client.delete(`sys/mounts/${mine}`)).status).toBe(204);
    expect((await perf.client.delete('cubbyhole/note')).status).toBe(204);
  });

  it("a userpass user of the primary logs in on the performance secondary and reads the primary's kv data there", async () => {
    // everything on the primary: the auth method, the user, the policy
    const policy = uniq('kv-reader');
    const defined = await primary.client.put(`sys/policies/acl/${policy}`, {
      policy: 'path "secret/data/*" { capabilities = ["read"] }',
    });
    expect(defined.status).toBe(204);
    expect((await primary.client.post('sys/auth/userpass', { type: 'userpass' })).status).toBe(204);
    const user = uniq('alice');
    const written = await primary.client.post(`auth/userpass/users/${user}`, {
      password: 'pw-of-alice',
      token_policies: policy,
    });
    expect(written.status).toBe(204);
    const created = await primary.client.post('auth/token/create', { policies: [policy] });
    expect(created.status).toBe(200);
    primaryToken = created.body.auth.client_token as string;
    primaryUser = user;
    primaryPolicy = policy;
    await inSync(primary.client, perf.client, 'performance');
    await inSync(primary.client, dr.client, 'dr');

    // the login runs on the secondary: the token is the secondary's own (tokens stay local)
    const login = await perf.client
      .withToken(undefined)
      .post(`auth/userpass/login/${user}`, { password: 'pw-of-alice' });
    expect(login.status).toBe(200);
    expect(login.body.auth.policies).toContain(policy);
    const alice = perf.client.withToken(login.body.auth.client_token as string);
    const read = await alice.get(sharedSecret);
    expect([read.status, read.body.data?.data]).toEqual([200, { team: 'blue' }]);
    expect(
      (await primary.client.withToken(login.body.auth.client_token as string).get(sharedSecret)).status,
    ).toBe(403);
    // the primary's tokens do not work there (performance secondaries keep their own)
    expect((await perf.client.withToken(primaryToken).get('auth/token/lookup-self')).status).toBe(403);
  });

  it("a write the secondary's policies deny is 403 there and never reaches the primary", async () => {
    // a token of the secondary's own (tokens stay local on a performance secondary)
    const policy = uniq('readonly');
    const defined = await perf.client.put(`sys/policies/acl/${policy}`, {
      policy: 'path "secret/data/*" { capabilities = ["read"] }',
    });
    expect(defined.status).toBe(204);
    // the policy was written on the primary (forwarded): the secondary checks it once streamed
    await readAtIndex(
      perf.client,
      `sys/policies/acl/${policy}`,
      defined.headers.get('x-service-index') ?? '',
    );
    const created = await perf.client.post('auth/token/create', { policies: [policy] });
    expect(created.status).toBe(200);
    const reader = perf.client.withToken(created.body.auth.client_token as string);
    const path = `secret/data/${uniq('denied')}`;
    const denied = await reader.post(path, { data: { n: 1 } });
    expect(denied.status).toBe(403);
    expect(String(denied.body.errors)).toContain('permission denied');
    expect((await primary.client.get(path)).status).toBe(404);
    // the same token may read there (the policy is checked on the secondary)
    expect((await reader.get(sharedSecret)).status).toBe(200);
  });

  it("the performance secondary's copy of the primary's kv log proves as the primary's kv log", async () => {
    await inSync(primary.client, perf.client, 'performance');
    // the secondary's own kv log holds its local writes; the primary's rows are in kv_replica
    expect(await sameTree(primary.client, perf.client, ['kv', 'kv_replica'])).toBeGreaterThan(15);
  });

  it("the performance secondary's copy of the primary's core-sys log proves as the primary's core_sys log", async () => {
    await inSync(primary.client, perf.client, 'performance');
    // the secondary's own core_sys log records its local events; the primary's rows are in core_sys_replica
    const size = await sameTree(primary.client, perf.client, ['core_sys', 'core_sys_replica']);
    expect(size).toBeGreaterThan(10);
    // and consistency between two sizes of the copy
    const half = Math.ceil(size / 2);
    const query = (log: string) => ({ query: { log, from: half, to: size } });
    const a = await primary.client.get('sys/history/consistency', query('core_sys'));
    const b = await perf.client.get('sys/history/consistency', query('core_sys_replica'));
    expect([a.status, b.status]).toEqual([200, 200]);
    const { first_root, second_root, proof } = a.body.data as Record<string, unknown>;
    expect(b.body.data).toMatchObject({ first_root, second_root, proof });
  });

  it('promoting the DR secondary fences the primary; the performance secondary follows the new primary', async () => {
    const base = 'sys/replication/dr/secondary/generate-operation-token';
    const start = await dr.client.post(`${base}/attempt`, {});
    const done = await dr.client.post(`${base}/update`, { key: dr.unsealKey, nonce: start.body.nonce });
    const decoded = await dr.client.post('sys/decode-token', {
      encoded_token: done.body.encoded_token,
      otp: start.body.otp,
    });
    const opToken = decoded.body.data.token as string;
    const promoted = await dr.client.post('sys/replication/dr/secondary/promote', {
      dr_operation_token: opToken,
      force: true,
    });
    expect(promoted.status).toBe(200);
    await waitFor(
      async () => ((await status(primary.client, 'dr')).mode === 'secondary' ? true : undefined),
      {
        timeoutMs: 30_000,
        intervalMs: 100,
      },
    );
    expect((await primary.client.post(`secret/data/${uniq('fenced')}`, { data: { n: 1 } })).status).toBe(400);
    // the promoted cluster serves the primary's kv data under the primary's mount table
    const served = await dr.client.get(sharedSecret);
    expect([served.status, served.body.data?.data]).toEqual([200, { team: 'blue' }]);
    // its kv log folded the primary's at their versions: a check-and-set write goes on from there
    const rewritten = await dr.client.post(sharedSecret, { data: { team: 'blue' }, options: { cas: 1 } });
    expect([rewritten.status, rewritten.body.data?.version]).toEqual([200, 2]);
    // a token the primary issued works there (DR takes tokens): lookup, a read, then its revoke
    const theirs = dr.client.withToken(primaryToken);
    const self = await theirs.get('auth/token/lookup-self');
    expect(self.status).toBe(200);
    expect(self.body.data.policies).toEqual(expect.arrayContaining([expect.stringMatching(/^kv-reader/)]));
    const read = await theirs.get(sharedSecret);
    expect([read.status, read.body.data?.data]).toEqual([200, { team: 'blue' }]);
    expect((await theirs.post('auth/token/revoke-self', {})).status).toBe(204);
    expect((await theirs.get('auth/token/lookup-self')).status).toBe(403);

    // the performance secondary is pointed at the promoted cluster (no wipe) and catches up
    expect((await dr.client.post('sys/replication/performance/primary/enable', {})).status).toBe(204);
    const issued = await dr.client.post('sys/replication/performance/primary/secondary-token', {
      id: 'perf-2',
    });
    const token = issued.body.wrap_info.token as string;
    expect(
      (await perf.client.post('sys/replication/performance/secondary/update-primary', { token })).status,
    ).toBe(204);
    expect((await dr.client.post(`secret/data/${uniq('after')}`, { data: { n: 1 } })).status).toBe(200);
    // the same merkle root: the performance secondary re-synced core-sys from the promoted
    // cluster's own log, which holds what it replayed from the old primary (the promotion fold)
    const synced = await replicasInSync(dr.client, perf.client, 'performance');
    expect(synced.secondary.merkle_root).toBe(synced.primary.merkle_root);
  });

  it("the performance secondary that follows the promoted cluster serves the old primary's users, policies, mounts and data, and forwards to it", async () => {
    // the old primary's mount table, user and policy, from the promoted cluster's log alone
    const [onDr, onPerf] = [await dr.client.get('sys/mounts'), await perf.client.get('sys/mounts')];
    expect(onPerf.body.data['secret/'].uuid).toBe(onDr.body.data['secret/'].uuid);
    const auths = [await dr.client.get('sys/auth'), await perf.client.get('sys/auth')];
    expect(auths[1]?.body.data['userpass/'].uuid).toBe(auths[0]?.body.data['userpass/'].uuid);
    const policy = await perf.client.get(`sys/policies/acl/${primaryPolicy}`);
    expect([policy.status, policy.body.data?.name]).toEqual([200, primaryPolicy]);
    const login = await perf.client
      .withToken(undefined)
      .post(`auth/userpass/login/${primaryUser}`, { password: 'pw-of-alice' });
    expect(login.status).toBe(200);
    expect(login.body.auth.policies).toContain(primaryPolicy);
    const alice = perf.client.withToken(login.body.auth.client_token as string);
    const read = await alice.get(sharedSecret);
    expect([read.status, read.body.data?.data]).toEqual([200, { team: 'blue' }]);

    // a write forwarded to the promoted cluster runs there (its mount uuids are the secondary's)
    const path = `secret/data/${uniq('to-promoted')}`;
    const written = await perf.client.post(path, { data: { origin: 'perf-after-promotion' } });
    expect(written.status).toBe(200);
    const onPrimary = await dr.client.get(path);
    expect([onPrimary.status, onPrimary.body.data?.data]).toEqual([200, { origin: 'perf-after-promotion' }]);
    const index = written.headers.get('x-service-index') ?? '';
    const local = await readAtIndex(perf.client, path, index);
    expect(local.body.data.data).toEqual({ origin: 'perf-after-promotion' });

    // a user written on the promoted cluster after the promotion reaches the secondary too
    const later = uniq('bob');
    expect(
      (
        await dr.client.post(`auth/userpass/users/${later}`, {
          password: 'pw-of-bob',
          token_policies: primaryPolicy,
        })
      ).status,
    ).toBe(204);
    const synced = await replicasInSync(dr.client, perf.client, 'performance');
    expect(synced.secondary.merkle_root).toBe(synced.primary.merkle_root);
    const bob = await perf.client
      .withToken(undefined)
      .post(`auth/userpass/login/${later}`, { password: 'pw-of-bob' });
    expect(bob.status).toBe(200);
  });
});
