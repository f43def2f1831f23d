import { freePort, waitFor } from '@coffer/testing';
import {
  replicasInSync,
  replicationStatus,
  startDevServer,
  uniq,
  type ApiClient,
  type DevServer,
  type ReplicationMode,
} from './support';

jest.setTimeout(180_000);

async function devServerWithClusterPort(): Promise<DevServer> {
  return startDevServer(
    { COFFER_DEV_CLUSTER_ADDRESS: `127.0.0.1:${await freePort()}` },
    { bannerTimeoutMs: 180_000 },
  );
}

const status = replicationStatus;

/** Polls until the secondary's merkle root is the primary's (and both are stable for one read). */
async function inSync(primary: ApiClient, secondary: ApiClient, mode: ReplicationMode) {
  const { primary: p, secondary: s } = await replicasInSync(primary, secondary, mode, 60_000);
  return { p, s };
}

const tokenFor = async (primary: ApiClient, mode: 'dr' | 'performance', id: string): Promise<string> => {
  const res = await primary.post(`sys/replication/${mode}/primary/secondary-token`, { id });
  expect(res.status).toBe(200);
  expect(res.body.data).toBeNull();
  expect(res.body.wrap_info).toEqual(
    expect.objectContaining({ token: expect.any(String), ttl: 1800, creation_time: expect.any(String) }),
  );
  return res.body.wrap_info.token as string;
};

/** Two dev servers: DR and performance replication, every move of the state table. */
describe('replication between two dev servers', () => {
  let a: DevServer;
  let b: DevServer;

  beforeAll(async () => {
    // one after the other: two dev servers booting at once on a busy machine miss the banner time-out
    a = await devServerWithClusterPort();
    b = await devServerWithClusterPort();
  }, 400_000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('answers status unauthenticated: disabled', async () => {
    expect(await status(a.client, 'dr')).toEqual({ mode: 'disabled' });
    expect(await status(a.client, 'performance')).toEqual({ mode: 'disabled' });
  });

  it('refuses the other routes without a token, and moves that do not apply', async () => {
    const anon = a.client.withToken(undefined);
    expect((await anon.post('sys/replication/dr/primary/enable', {})).status).toBe(403);
    const res = await a.client.post('sys/replication/dr/primary/demote', {});
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatch(/not a DR primary/);
    expect((await a.client.post('sys/replication/dr/primary/secondary-token', { id: 'x' })).status).toBe(400);
  });

  it('streams every log from a DR primary to its secondary: same merkle_root, real WAL numbers', async () => {
    expect((await a.client.post('sys/replication/dr/primary/enable', {})).status).toBe(204);
    const p = await status(a.client, 'dr');
    expect(p).toEqual(
      expect.objectContaining({
        mode: 'primary',
        known_secondaries: [],
        merkle_root: expect.stringMatching(/^[0-9a-f]{64}$/),
      }),
    );
    expect(p.last_wal).toBeGreaterThan(0);
    expect((await a.client.post('sys/replication/dr/primary/enable', {})).status).toBe(400);

    // A backlog the secondary reads in 500-row batches: kv v2 writes of keys keeping one version are
    // two events each (the version and its prune, projected together), and a run of one key's
    // writes in either parity, so a batch's row limit falls inside one of these appends.
    for (const [key, count] of [
      ['hot-a', 300],
      ['single', 1],
      ['hot-b', 300],
    ] as const) {
      expect((await a.client.post(`secret/metadata/${key}`, { max_versions: 1 })).status).toBe(204);
      for (let i = 0; i < count; i += 20)
        await Promise.all(
          Array.from({ length: Math.min(20, count - i) }, (_, j) =>
            a.client
              .post(`secret/data/${key}`, { data: { n: i + j } })
              .then((r) => expect(r.status).toBe(200)),
          ),
        );
    }

    const token = await tokenFor(a.client, 'dr', 'b');
    expect((await b.client.post('sys/replication/dr/secondary/enable', { token })).status).toBe(204);
    // the activation token is single-use
    const again = await b.client.post('sys/replication/performance/secondary/enable', { token });
    expect(again.status).toBe(400);

    for (let i = 0; i < 20; i += 1)
      expect((await a.client.post(`secret/data/${uniq('dr')}`, { data: { n: i } })).status).toBe(200);
    const { p: primary, s: secondary } = await inSync(a.client, b.client, 'dr');
    expect(secondary).toEqual(
      expect.objectContaining({
        mode: 'secondary',
        cluster_id: primary.cluster_id,
        secondary_id: 'b',
        state: 'stream-wals',
        known_primary_cluster_addrs: [primary.primary_cluster_addr],
      }),
    );
    // a DR secondary answers health with 472 (or drsecondarycode) and refuses client requests
    const anon = b.client.withToken(undefined);
    const health = await anon.get<Record<string, unknown>>('sys/health');
    expect(health.status).toBe(472);
    expect(health.body).toEqual(
      expect.objectContaining({ initialized: true, sealed: false, replication_dr_mode: 'secondary' }),
    );
    expect((await anon.get('sys/health?drsecondarycode=299')).status).toBe(299);
    expect((await anon.get('sys/health?drsecondarycode=x')).status).toBe(400);
    const primaryHealth = await a.client.withToken(undefined).get<Record<string, unknown>>('sys/health');
    expect(primaryHealth.status).toBe(200);
    expect(primaryHealth.body.replication_dr_mode).toBe('primary');
    for (const path of ['secret/data/anything', 'sys/mounts', 'auth/token/lookup-self']) {
      const refused = await b.client.get(path);
      expect(refused.status).toBe(400);
      expect(refused.body.errors).toEqual(['path disabled in replication DR secondary mode']);
    }
    expect((await b.client.get('sys/seal-status')).status).toBe(200);
    const after = await status(a.client, 'dr');
    expect(after.known_secondaries).toEqual(['b']);
    expect(after.secondaries?.[0]).toEqual(
      expect.objectContaining({ node_id: 'b', connection_status: 'connected' }),
    );
  });

  it('revoke-secondary cuts the secondary off for good', async () => {
    expect((await a.client.post('sys/replication/dr/primary/revoke-secondary', { id: 'b' })).status).toBe(
      204,
    );
    await waitFor(async () => (await status(b.client, 'dr')).state !== 'stream-wals', { timeoutMs: 20_000 });
    await a.client.post(`secret/data/${uniq('after-revoke')}`, { data: { n: 1 } });
    const p = await status(a.client, 'dr');
    expect(p.known_secondaries).toEqual([]);
    expect((await status(b.client, 'dr')).last_remote_wal).toBeLessThan(p.last_wal ?? 0);
    // the id stays revoked
    expect((await a.client.post('sys/replication/dr/primary/secondary-token', { id: 'b' })).status).toBe(400);
  });

  it('disable then re-enable gives a new cluster id; the old secondary cannot rejoin', async () => {
    const before = (await status(a.client, 'dr')).cluster_id;
    expect((await a.client.post('sys/replication/dr/primary/disable', {})).status).toBe(204);
    expect(await status(a.client, 'dr')).toEqual({ mode: 'disabled' });
    expect((await a.client.post('sys/replication/dr/primary/enable', {})).status).toBe(204);
    expect((await status(a.client, 'dr')).cluster_id).not.toBe(before);
    expect((await b.client.post('sys/replication/dr/secondary/disable', {})).status).toBe(204);
    expect(await status(b.client, 'dr')).toEqual({ mode: 'disabled' });
  });

  it('re-enabling a secondary wipes its copy and follows the new set', async () => {
    const token = await tokenFor(a.client, 'dr', 'b2');
    expect((await b.client.post('sys/replication/dr/secondary/enable', { token })).status).toBe(204);
    const { s } = await inSync(a.client, b.client, 'dr');
    expect(s.secondary_id).toBe('b2');
  });

  it('a demoted primary keeps its cluster id and follows no one', async () => {
    // a write the secondary never gets: once the old primary follows the promoted secondary
    // (update-primary below), its kv log is ahead of the new primary's and must re-sync
    expect((await a.client.post('sys/replication/dr/primary/revoke-secondary', { id: 'b2' })).status).toBe(
      204,
    );
    await waitFor(async () => (await status(b.client, 'dr')).state !== 'stream-wals', { timeoutMs: 20_000 });
    expect((await a.client.post(`secret/data/${uniq('lost')}`, { data: { n: 1 } })).status).toBe(200);
    const id = (await status(a.client, 'dr')).cluster_id;
    expect((await a.client.post('sys/replication/dr/primary/demote', {})).status).toBe(204);
    const demoted = await status(a.client, 'dr');
    expect(demoted).toEqual(expect.objectContaining({ mode: 'secondary', cluster_id: id, state: 'idle' }));
    expect((await a.client.post('sys/replication/dr/primary/enable', {})).status).toBe(400);
  });

  /** A DR operation token from the server's unseal key, through the attempt routes. */
  async function operationToken(server: DevServer): Promise<string> {
    const base = 'sys/replication/dr/secondary/generate-operation-token';
    const start = await server.client.post(`${base}/attempt`, {});
    expect(start.status).toBe(200);
    expect(start.body).toEqual(
      expect.objectContaining({ started: true, progress: 0, required: 1, complete: false }),
    );
    expect((await server.client.get(`${base}/attempt`)).body.started).toBe(true);
    const done = await server.client.post(`${base}/update`, {
      key: server.unsealKey,
      nonce: start.body.nonce,
    });
    expect(done.status).toBe(200);
    expect(done.body.complete).toBe(true);
    const decoded = await server.client.post('sys/decode-token', {
      encoded_token: done.body.encoded_token,
      otp: start.body.otp,
    });
    expect(decoded.status).toBe(200);
    return decoded.body.data.token as string;
  }

  it('DR promote needs a valid operation token and passes the safety check or force', async () => {
    const promote = 'sys/replication/dr/secondary/promote';
    expect((await b.client.post(promote, {})).status).toBe(400);
    const bad = await b.client.post(promote, { dr_operation_token: 'hvs.nope' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual(['invalid DR operation token']);
    const token = await operationToken(b);
    // B's primary (A) was demoted: B cannot prove it has the latest WAL
    const unsafe = await b.client.post(promote, { dr_operation_token: token });
    expect(unsafe.status).toBe(400);
    expect(unsafe.body.errors[0]).toMatch(/force/);
    const forced = await b.client.post(promote, { dr_operation_token: token, force: true });
    expect(forced.status).toBe(200);
    expect(forced.body.data).toEqual({ progress: 0, required: 0, complete: true });
    expect(forced.body.complete).toBe(true);
    expect((await status(b.client, 'dr')).mode).toBe('primary');
    const deleted = await b.client.post('sys/replication/dr/secondary/operation-token/delete', {
      dr_operation_token: token,
    });
    expect(deleted.status).toBe(204);
    expect((await b.client.post(promote, { dr_operation_token: token })).status).toBe(400);
  });

  it('update-primary points the demoted old primary at the promoted one (no wipe; a diverged log re-syncs)', async () => {
    const token = await tokenFor(b.client, 'dr', 'a');
    const opToken = await operationToken(a);
    const res = await a.client.post('sys/replication/dr/secondary/update-primary', {
      dr_operation_token: opToken,
      token,
    });
    expect(res.status).toBe(204);
    const { s } = await inSync(b.client, a.client, 'dr');
    expect(s).toEqual(
      expect.objectContaining({ mode: 'secondary', secondary_id: 'a', state: 'stream-wals' }),
    );
    // a blank token keeps it a secondary and forgets the primary
    const cleared = await a.client.post('sys/replication/dr/secondary/update-primary', {
      dr_operation_token: opToken,
      token: '',
    });
    expect(cleared.status).toBe(204);
    expect(await status(a.client, 'dr')).toEqual(
      expect.objectContaining({ mode: 'secondary', state: 'idle', known_primary_cluster_addrs: [] }),
    );
  });

  it('performance replication streams independently of DR (a DR secondary takes no other role)', async () => {
    // a is still an (idle) DR secondary: it serves nothing else until it leaves that set
    const refused = await a.client.post('sys/replication/performance/secondary/enable', { token: 'x' });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual(['path disabled in replication DR secondary mode']);
    expect((await a.client.post('sys/replication/dr/secondary/disable', {})).status).toBe(204);
    expect((await b.client.post('sys/replication/performance/primary/enable', {})).status).toBe(204);
    const token = await tokenFor(b.client, 'performance', 'a');
    expect((await a.client.post('sys/replication/performance/secondary/enable', { token })).status).toBe(204);
    await b.client.post(`secret/data/${uniq('perf')}`, { data: { n: 1 } });
    const { s } = await inSync(b.client, a.client, 'performance');
    expect(s.mode).toBe('secondary');
    // read-after-write: a write on the primary answers its index state; a read on the secondary
    // carrying it is served once that state is applied there, 412 before (the client retries)
    const path = `secret/data/${uniq('raw')}`;
    const written = await b.client.post(path, { data: { n: 2 } });
    expect(written.status).toBe(200);
    const index = written.headers.get('x-service-index') ?? '';
    expect(index).not.toBe('');
    expect(written.headers.get('x-vault-index')).toBe(index);
    const far = Buffer.from(JSON.stringify({ s: 'kv', w: 1e12 })).toString('base64url');
    const early = await a.client.get(path, { headers: { 'X-Service-Index': far } });
    expect(early.status).toBe(412);
    expect(early.body.errors).toEqual(['required index state not present']);
    await waitFor(
      async () => {
        const res = await a.client.get(path, { headers: { 'X-Service-Index': index } });
        return res.status === 412 ? undefined : res.status;
      },
      { timeoutMs: 20_000, intervalMs: 50 },
    );
    expect((await a.client.get(path, { headers: { 'X-Service-Index': 'not-an-index' } })).status).toBe(400);
    // a core-sys write on the primary answers its position in the primary's core-sys log, which
    // the secondary's core-sys replica log reaches once it has streamed
    const policy = uniq('raw-policy');
    const policyWritten = await b.client.put(`sys/policies/acl/${policy}`, {
      policy: 'path "secret/*" { capabilities = ["read"] }',
    });
    expect(policyWritten.status).toBe(204);
    const policyIndex = policyWritten.headers.get('x-service-index') ?? '';
    expect(JSON.parse(Buffer.from(policyIndex, 'base64url').toString('utf8'))).toEqual(
      expect.objectContaining({ s: 'core_sys' }),
    );
    const policyRead = await waitFor(
      async () => {
        const res = await a.client.get<{ data?: { name?: string } }>(`sys/policies/acl/${policy}`, {
          headers: { 'X-Service-Index': policyIndex },
        });
        return res.status === 412 ? undefined : res;
      },
      { timeoutMs: 20_000, intervalMs: 50 },
    );
    expect([policyRead.status, policyRead.body.data?.name]).toEqual([200, policy]);
    // the secondary's kv log is the primary's stream: it takes no kv write of its own (writes are
    // forwarded to the primary; told not to forward, it answers Vault's read-only refusal)
    const write = await a.client.post(
      `secret/data/${uniq('local')}`,
      { data: { n: 1 } },
      { headers: { 'X-Service-No-Request-Forwarding': 'true' } },
    );
    expect([write.status, write.body.errors]).toEqual([400, ['cannot write to readonly storage']]);
    const health = await a.client.withToken(undefined).get<Record<string, unknown>>('sys/health');
    expect(health.status).toBe(200);
    expect(health.body).toEqual(
      expect.objectContaining({ replication_performance_mode: 'secondary', replication_dr_mode: 'disabled' }),
    );
  });

  it('paths filters: write, read, mount-filter mapping, dynamic filters; filtered data keeps the roots equal', async () => {
    const base = 'sys/replication/performance/primary';
    expect(
      (await b.client.post(`${base}/paths-filter/a`, { mode: 'bogus', paths: ['secret/'] })).status,
    ).toBe(400);
    expect((await b.client.get(`${base}/paths-filter/a`)).status).toBe(404);
    expect((await b.client.post(`${base}/paths-filter/a`, { mode: 'deny', paths: ['secret'] })).status).toBe(
      204,
    );
    expect((await b.client.get(`${base}/paths-filter/a`)).body.data).toEqual({
      mode: 'deny',
      paths: ['secret/'],
    });
    expect((await b.client.get(`${base}/mount-filter/a`)).body.data).toEqual({
      mode: 'blacklist',
      paths: ['secret/'],
    });
    const dynamic = await b.client.get(`${base}/dynamic-filter/a`);
    expect(dynamic.status).toBe(200);
    expect(dynamic.body.data.dynamic_filtered_mounts).toContain('secret/');
    await waitFor(
      async () => {
        const res = await a.client.get('sys/replication/performance/secondary/dynamic-filter/a');
        return res.status === 200 && (res.body.data.dynamic_filtered_mounts as string[]).includes('secret/');
      },
      { timeoutMs: 20_000 },
    );
    await b.client.post(`secret/data/${uniq('filtered')}`, { data: { hidden: 'x' } });
    await inSync(b.client, a.client, 'performance');
    expect(
      (await b.client.post(`${base}/mount-filter/a`, { mode: 'whitelist', paths: ['cubbyhole/'] })).status,
    ).toBe(204);
    expect((await b.client.get(`${base}/paths-filter/a`)).body.data).toEqual({
      mode: 'allow',
      paths: ['cubbyhole/'],
    });
    expect((await b.client.delete(`${base}/paths-filter/a`)).status).toBe(204);
    expect((await b.client.get(`${base}/paths-filter/a`)).status).toBe(404);
  });

  it('secondary_public_key: the activation is encrypted to the secondary instead of wrapped', async () => {
    const key = await a.client.post('sys/replication/performance/secondary/generate-public-key', {});
    expect(key.status).toBe(200);
    const publicKey = key.body.data.secondary_public_key as string;
    expect(publicKey).toContain('BEGIN PUBLIC KEY');
    const issued = await b.client.post('sys/replication/performance/primary/secondary-token', {
      id: 'a2',
      secondary_public_key: publicKey,
    });
    expect(issued.status).toBe(200);
    const token = issued.body.wrap_info.token as string;
    expect(token.startsWith('cra1.')).toBe(true);
    expect((await a.client.post('sys/replication/performance/secondary/disable', {})).status).toBe(204);
    expect((await a.client.post('sys/replication/performance/secondary/enable', { token })).status).toBe(204);
    const { s } = await inSync(b.client, a.client, 'performance');
    expect(s.secondary_id).toBe('a2');
  });
  it('split brain: a secondary promoted while its primary is up makes that primary step down (fencing)', async () => {
    // b is still the performance primary, a its secondary "a2"
    const promoted = await a.client.post('sys/replication/performance/secondary/promote', { force: true });
    expect(promoted.status).toBeLessThan(300);
    expect((await status(a.client, 'performance')).mode).toBe('primary');
    // the promoted cluster tells the old primary over the cluster connection; it demotes itself
    const demoted = await waitFor(
      async () => {
        const s = await status(b.client, 'performance');
        return s.mode === 'secondary' ? s : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    expect(demoted.state).toBe('idle');
    // and refuses the writes that would fork the replicated data
    const write = await b.client.post(`secret/data/${uniq('fenced')}`, { data: { n: 1 } });
    expect(write.status).toBe(400);
    expect(write.body.errors[0]).toMatch(/performance secondary/);
    // the new primary takes writes
    expect((await a.client.post(`secret/data/${uniq('new-primary')}`, { data: { n: 1 } })).status).toBe(200);
  });
});
