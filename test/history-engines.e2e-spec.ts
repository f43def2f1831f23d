import { startSlapd, waitFor, historyInstant } from '@coffer/testing';
import { startTarget, START_TIMEOUT_MS, TARGETS, type Target } from './support';

jest.setTimeout(120_000);

/**
 * sys/history/state of secrets engines' paths over HTTP, in dev mode and against a cluster: core-sys
 * resolves the mount then and the engine (kv, pki, ssh) rebuilds the path from its own log. Each answer
 * is compared with what the live API said at that instant (docs/history.md).
 */
describe.each(TARGETS)('%s: history of engine paths', (kind) => {
  let target: Target;

  beforeAll(async () => {
    target = await startTarget(kind, { label: 'history-engines', readyTimeoutMs: 150_000 });
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await target?.stop();
  });

  it('answers kv v2 config, metadata and values as the live API did; destroyed data stays destroyed', async () => {
    interface Instant {
      at: string;
      metadata: unknown;
      config: unknown;
      /** version -> the live read's status and data then */
      data: Record<number, { status: number; data: unknown }>;
    }
    const instants: Instant[] = [];
    const key = 'hist-kv';
    const record = async (): Promise<void> => {
      const data: Instant['data'] = {};
      for (const v of [1, 2, 3, 4]) {
        const res = await target.root.get(`secret/data/${key}`, { query: { version: v } });
        data[v] = { status: res.status, data: res.body.data };
      }
      const metadata = (await target.root.get(`secret/metadata/${key}`)).body.data;
      const config = (await target.root.get('secret/config')).body.data;
      instants.push({ at: await historyInstant(), metadata, config, data });
    };
    const put = async (v: number) =>
      expect((await target.root.put(`secret/data/${key}`, { data: { v } })).status).toBe(200);

    const meta = { max_versions: 3, custom_metadata: { owner: 'ann' } };
    expect((await target.root.put(`secret/metadata/${key}`, meta)).status).toBe(204);
    await put(1);
    await record();
    await put(2);
    await put(3);
    expect(
      (await target.root.post(`secret/metadata/${key}`, { custom_metadata: { owner: 'bob' } })).status,
    ).toBe(204);
    await record();
    await put(4); // max_versions 3: version 1 is pruned
    expect((await target.root.post(`secret/destroy/${key}`, { versions: [2] })).status).toBe(204);
    await record();

    const past = (path: string, at: string, query: Record<string, string | number> = {}) =>
      target.root.get(`sys/history/state/${path}`, { query: { at, ...query } });
    for (const then of instants) {
      const metadata = await past(`secret/metadata/${key}`, then.at);
      expect(metadata.status).toBe(200);
      expect(metadata.body.data.state).toEqual(then.metadata);
      expect(metadata.body.data.engine_wal).toBeGreaterThan(0);
      expect((await past('secret/config', then.at)).body.data.state).toEqual(then.config);
    }
    const [first, second, third] = instants;
    if (!first || !second || !third) throw new Error('three instants expected');
    // a value live then and still held by the engine: the live read's answer then
    const v3 = await past(`secret/data/${key}`, second.at, { version: 3 });
    expect(v3.status).toBe(200);
    expect(v3.body.data.state).toEqual(second.data[3]?.data);
    expect((await past(`secret/data/${key}`, third.at)).body.data.state.data).toEqual({ v: 4 });
    // live then, destroyed (version 2) or pruned (version 1) since: gone from history too
    for (const [at, version] of [
      [second.at, 2],
      [first.at, 1],
    ] as const) {
      expect(instants.find((i) => i.at === at)?.data[version]?.status).toBe(200);
      const gone = await past(`secret/data/${key}`, at, { version });
      expect(gone.status).toBe(404);
      expect(JSON.stringify(gone.body)).not.toContain('"v":');
      expect(JSON.stringify(gone.body)).toContain('destroyed data stays destroyed');
    }
    // what was 404 then is 404 in history (version 4 did not exist at the second instant)
    expect((await past(`secret/data/${key}`, second.at, { version: 4 })).status).toBe(404);

    // values only to callers who may read the live path now; metadata to any history reader
    const historian = 'path "sys/history/*" { capabilities = ["read", "sudo"] }';
    expect((await target.root.put('sys/policies/acl/historian', { policy: historian })).status).toBe(204);
    const auth = (await target.root.post('auth/token/create', { policies: ['historian'] })).body.auth;
    const reader = target.root.withToken(auth.client_token as string);
    expect(
      (await reader.get(`sys/history/state/secret/metadata/${key}`, { query: { at: second.at } })).status,
    ).toBe(200);
    expect(
      (await reader.get(`sys/history/state/secret/data/${key}`, { query: { at: second.at, version: 3 } }))
        .status,
    ).toBe(403);
    // `at` as a core_sys WAL index: the kv state at the time that event was recorded
    const head = (await target.root.get('sys/history/tree-head')).body.data.tree_size as number;
    expect((await past(`secret/metadata/${key}`, String(head))).body.data.state).toEqual(third.metadata);
    expect((await past('secret/subkeys/x', third.at)).status).toBe(400);
  });

  it('answers a pki role as it read before a change, and 404 before it existed', async () => {
    expect((await target.root.post('sys/mounts/hist-pki', { type: 'pki' })).status).toBe(204);
    const before = await historyInstant();
    const role = { allow_any_name: true, key_type: 'ec', ttl: '1h' };
    expect((await target.root.post('hist-pki/roles/web', role)).status).toBe(204);
    const live = (await target.root.get('hist-pki/roles/web')).body.data;
    const then = await historyInstant();
    expect((await target.root.post('hist-pki/roles/web', { ...role, ttl: '2h' })).status).toBe(204);

    const past = await target.root.get('sys/history/state/hist-pki/roles/web', { query: { at: then } });
    expect(past.status).toBe(200);
    expect(past.body.data.state).toEqual(live);
    const now = await target.root.get('sys/history/state/hist-pki/roles/web');
    expect(now.body.data.state).toEqual((await target.root.get('hist-pki/roles/web')).body.data);
    expect(now.body.data.state).not.toEqual(live);
    const missing = await target.root.get('sys/history/state/hist-pki/roles/web', { query: { at: before } });
    expect(missing.status).toBe(404);
  });

  it('answers ssh roles, the ssh and pki roles LISTs and pki config/urls as the live API did', async () => {
    expect((await target.root.post('sys/mounts/hist-ssh', { type: 'ssh' })).status).toBe(204);
    const otp = { key_type: 'otp', default_user: 'ops', cidr_list: '10.0.0.0/8' };
    expect((await target.root.post('hist-ssh/roles/ops', otp)).status).toBe(204);
    expect(
      (await target.root.post('hist-pki/config/urls', { ocsp_servers: ['https://ocsp.example'] })).status,
    ).toBe(204);
    const read = async () => ({
      role: (await target.root.get('hist-ssh/roles/ops')).body.data,
      sshList: (await target.root.list('hist-ssh/roles')).body.data,
      pkiList: (await target.root.list('hist-pki/roles')).body.data,
      urls: (await target.root.get('hist-pki/config/urls')).body.data,
    });
    const live = await read();
    const then = await historyInstant();
    expect((await target.root.post('hist-ssh/roles/ops', { ...otp, default_user: 'root' })).status).toBe(204);
    expect(
      (await target.root.post('hist-ssh/roles/ca', { key_type: 'ca', allow_user_certificates: true })).status,
    ).toBe(204);
    expect((await target.root.post('hist-pki/roles/api', { allow_any_name: true })).status).toBe(204);
    expect((await target.root.post('hist-pki/config/urls', { ocsp_servers: [] })).status).toBe(204);
    expect(await read()).not.toEqual(live);

    const past = async (path: string) => {
      const res = await target.root.get(`sys/history/state/${path}`, { query: { at: then } });
      expect(res.status).toBe(200);
      return res.body.data.state;
    };
    expect({
      role: await past('hist-ssh/roles/ops'),
      sshList: await past('hist-ssh/roles'),
      pkiList: await past('hist-pki/roles'),
      urls: await past('hist-pki/config/urls'),
    }).toEqual(live);
  });

  it('answers kv LISTs, the pki CA certificate and the ssh CA and keys as the live API did', async () => {
    expect((await target.root.post('sys/mounts/hist-kv1', { type: 'kv' })).status).toBe(204);
    expect((await target.root.post('sys/mounts/hist-ca', { type: 'pki' })).status).toBe(204);
    expect((await target.root.post('sys/mounts/hist-sshca', { type: 'ssh' })).status).toBe(204);
    const live = async () => {
      const ca = await target.root.get('hist-ca/cert/ca');
      const sshCa = await target.root.get('hist-sshca/config/ca');
      const list = async (path: string) => {
        const res = await target.root.list(path);
        return res.status === 200 ? res.body.data : null;
      };
      return {
        at: await historyInstant(),
        v2: await list('secret/metadata/hist-list/'),
        v1: await list('hist-kv1/f/'),
        ca: ca.status === 200 ? ca.body.data : null,
        sshCa: sshCa.status === 200 ? sshCa.body.data : null,
      };
    };
    const steps = [await live()];
    for (const key of ['a', 'b/c']) {
      expect((await target.root.put(`secret/data/hist-list/${key}`, { data: { k: key } })).status).toBe(200);
      expect((await target.root.put(`hist-kv1/f/${key}`, { k: key })).status).toBe(204);
    }
    expect((await target.root.post('hist-ca/root/generate/internal', { common_name: 'ca' })).status).toBe(
      200,
    );
    const generated = await target.root.post('hist-sshca/config/ca', { generate_signing_key: true });
    expect(generated.status).toBe(200);
    steps.push(await live());
    expect((await target.root.delete('secret/metadata/hist-list/a')).status).toBe(204);
    expect((await target.root.delete('hist-kv1/f/b/c')).status).toBe(204);
    expect((await target.root.delete('hist-ca/root')).status).toBe(204);
    expect((await target.root.delete('hist-sshca/config/ca')).status).toBe(204);
    steps.push(await live());
    expect(steps[1]).toMatchObject({ v2: { keys: ['a', 'b/'] }, v1: { keys: ['a', 'b/'] } });

    for (const then of steps) {
      const past = (path: string, list = false) =>
        target.root.get(`sys/history/state/${path}`, {
          query: list ? { at: then.at, list: 'true' } : { at: then.at },
        });
      const stateOf = async (path: string, list = false) => {
        const res = await past(path, list);
        expect([path, res.status]).toEqual([path, res.status === 404 ? 404 : 200]);
        return res.status === 200 ? res.body.data.state : null;
      };
      expect({
        v2: await stateOf('secret/metadata/hist-list/', true),
        v1: await stateOf('hist-kv1/f', true),
        ca: await stateOf('hist-ca/cert/ca'),
        sshCa: await stateOf('hist-sshca/config/ca'),
      }).toEqual({ v2: then.v2, v1: then.v1, ca: then.ca, sshCa: then.sshCa });
      // the LIST verb is the same question
      const listed = await target.root.list('sys/history/state/secret/metadata/hist-list/', {
        query: { at: then.at },
      });
      expect(listed.status === 200 ? listed.body.data.state : null).toEqual(then.v2);
      const pem = JSON.stringify((await past('hist-ca/ca/pem')).body);
      expect(pem).not.toContain('PRIVATE KEY');
    }
  });

  it('answers directory and cloud-creds (cloud-a, cloud-b) config and roles as the live API did, 404 before', async () => {
    const slapd = await startSlapd(['hist1']);
    try {
      const mounts = { 'hist-dir': 'directory', 'hist-aws': 'cloud-b', 'hist-azure': 'cloud-a' };
      for (const [path, type] of Object.entries(mounts))
        expect((await target.root.post(`sys/mounts/${path}`, { type })).status).toBe(204);
      // a cluster's engine replicas answer 503 until they hold the keyring
      await waitFor(
        async () =>
          (
            await Promise.all(
              ['hist-dir/config', 'hist-aws/config/root', 'hist-azure/config'].map((p) => target.root.get(p)),
            )
          ).every((res) => res.status === 404),
        { timeoutMs: 30_000 },
      );
      const before = await historyInstant();
      const dirConfig = {
        url: slapd.url,
        binddn: slapd.binddn,
        bindpass: slapd.bindpass,
        userdn: slapd.userdn,
        schema: 'openldap',
      };
      expect((await target.root.post('hist-dir/config', dirConfig)).status).toBe(204);
      expect((await target.root.post('hist-dir/roles/r', { service_account_name: 'hist1' })).status).toBe(
        204,
      );
      const root = { access_key: 'AKIDHIST', secret_key: 'hist-aws-secret', region: 'eu-west-1' };
      expect((await target.root.post('hist-aws/config/root', root)).status).toBe(204);
      const awsRole = { credential_type: 'iam_user', policy_arns: ['arn:aws:iam::aws:policy/A'] };
      expect((await target.root.post('hist-aws/roles/r', awsRole)).status).toBe(204);
      const azure = { subscription_id: 's', tenant_id: 't', client_secret: 'hist-azure-secret' };
      expect((await target.root.post('hist-azure/config', azure)).status).toBe(204);
      const paths = [
        'hist-dir/config',
        'hist-dir/roles/r',
        'hist-dir/roles',
        'hist-aws/config/root',
        'hist-aws/roles/r',
        'hist-aws/roles',
        'hist-azure/config',
      ];
      const live: Record<string, unknown> = {};
      for (const path of paths) {
        const res = path.endsWith('/roles') ? await target.root.list(path) : await target.root.get(path);
        expect(res.status).toBe(200);
        // password_last_set is the directory's at the read, not in the log: history leaves it out
        const { password_last_set: _lastSet, ...data } = res.body.data as Record<string, unknown>;
        live[path] = data;
      }
      const then = await historyInstant();
      expect((await target.root.post('hist-dir/config', { ...dirConfig, length: 20 })).status).toBe(204);
      expect((await target.root.delete('hist-dir/roles/r')).status).toBe(204);
      expect(
        (await target.root.post('hist-aws/config/root', { ...root, access_key: 'AKIDNEW' })).status,
      ).toBe(204);
      expect((await target.root.delete('hist-aws/roles/r')).status).toBe(204);
      expect((await target.root.post('hist-azure/config', { ...azure, tenant_id: 'u' })).status).toBe(204);

      for (const path of paths) {
        const past = await target.root.get(`sys/history/state/${path}`, { query: { at: then } });
        expect([path, past.status]).toEqual([path, 200]);
        expect([path, past.body.data.state]).toEqual([path, live[path]]);
        expect(past.text).not.toMatch(/hist-(aws|azure)-secret|initial-bind-password/);
        expect([
          path,
          (await target.root.get(`sys/history/state/${path}`, { query: { at: before } })).status,
        ]).toEqual([path, 404]);
      }
    } finally {
      await slapd.stop();
    }
  });
});
