import { ensureKvV2, waitForEngines } from './support/launch/bootstrap';
import {
  api,
  startCluster,
  startDevServer,
  START_TIMEOUT_MS,
  type ApiClient,
  type Cluster,
  type DevServer,
} from './support';

jest.setTimeout(60_000);

/** sys/init, seal-status, unseal, seal and health over HTTP, through every state of the seal. */
describe('cluster: init, unseal, seal and health from a fresh cluster', () => {
  let cluster: Cluster;
  let anon: ApiClient;
  let root: ApiClient;
  let keys: string[] = [];
  let keysHex: string[] = [];

  beforeAll(async () => {
    cluster = await startCluster({ init: false, label: 'seal' });
    anon = api(cluster.baseUrl);
  }, START_TIMEOUT_MS);
  afterAll(() => cluster?.stop());

  describe('before init', () => {
    it('GET sys/init says not initialised', async () => {
      const res = await anon.get('sys/init');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ initialized: false });
    });

    it('seal-status says sealed and not initialised', async () => {
      const res = await anon.get('sys/seal-status');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ type: 'shamir', initialized: false, sealed: true });
    });

    it('health answers 501, or the uninitcode given', async () => {
      const res = await anon.get('sys/health');
      expect(res.status).toBe(501);
      expect(res.body).toMatchObject({ initialized: false, sealed: true });
      expect((await anon.get('sys/health', { query: { uninitcode: 299 } })).status).toBe(299);
      const head = await anon.head('sys/health');
      expect(head.status).toBe(501);
      expect(head.text).toBe('');
    });

    it('rejects init parameters that cannot work', async () => {
      expect((await anon.put('sys/init', { secret_shares: 2, secret_threshold: 3 })).status).toBe(400);
      expect((await anon.put('sys/init', { secret_threshold: 1 })).status).toBe(400);
      expect((await anon.put('sys/init', { secret_shares: 0, secret_threshold: 0 })).status).toBe(400);
      expect((await anon.get('sys/init')).body).toEqual({ initialized: false });
    });
  });

  describe('init', () => {
    it('returns three shares (hex and base64) and a root token', async () => {
      const res = await anon.put('sys/init', { secret_shares: 3, secret_threshold: 2 });
      expect(res.status).toBe(200);
      expect(res.body.keys).toHaveLength(3);
      expect(res.body.keys_base64).toHaveLength(3);
      keysHex = res.body.keys;
      keys = res.body.keys_base64;
      keysHex.forEach((hex, i) => {
        expect(hex).toMatch(/^[0-9a-f]+$/);
        expect(Buffer.from(hex, 'hex').toString('base64')).toBe(keys[i]);
      });
      expect(typeof res.body.root_token).toBe('string');
      root = api(cluster.baseUrl, res.body.root_token);
    });

    it('refuses a second init', async () => {
      const res = await anon.put('sys/init', { secret_shares: 1, secret_threshold: 1 });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ errors: ['Vault is already initialized'] });
    });

    it('is initialised but sealed, with threshold 2 of 3', async () => {
      expect((await anon.get('sys/init')).body).toEqual({ initialized: true });
      const status = await anon.get('sys/seal-status');
      expect(status.body).toMatchObject({ initialized: true, sealed: true, t: 2, n: 3, progress: 0 });
    });

    it('health answers 503 while sealed, or the sealedcode given', async () => {
      const res = await anon.get('sys/health');
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ initialized: true, sealed: true });
      expect((await anon.get('sys/health', { query: { sealedcode: 299 } })).status).toBe(299);
      expect((await anon.head('sys/health', { query: { sealedcode: 204 } })).status).toBe(204);
      expect((await anon.get('sys/health', { query: { sealedcode: 'abc' } })).status).toBe(400);
    });

    it('answers 503 "Vault is sealed" to authenticated routes while sealed', async () => {
      const res = await root.get('sys/mounts');
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ errors: ['Vault is sealed'] });
    });
  });

  describe('unseal', () => {
    it('needs a key or reset', async () => {
      const res = await anon.put('sys/unseal', {});
      expect(res.status).toBe(400);
      expect(res.body.errors[0]).toBe(
        "'key' must be specified in request body as JSON, or 'reset' set to true",
      );
    });

    it('rejects a key that is neither hex nor base64', async () => {
      const res = await anon.put('sys/unseal', { key: 'not a key!' });
      expect(res.status).toBe(400);
      expect(res.body.errors[0]).toBe("'key' must be a valid hex or base64 string");
    });

    it('counts a hex share, and reset forgets it', async () => {
      const first = await anon.put('sys/unseal', { key: keysHex[0] });
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ sealed: true, t: 2, n: 3, progress: 1 });
      expect(first.body.nonce).not.toBe('');
      const reset = await anon.put('sys/unseal', { reset: true });
      expect(reset.status).toBe(200);
      expect(reset.body).toMatchObject({ sealed: true, progress: 0 });
    });

    it('does not count the same share twice', async () => {
      await anon.put('sys/unseal', { key: keys[0] });
      const again = await anon.put('sys/unseal', { key: keysHex[0] });
      expect([200, 400]).toContain(again.status);
      expect((await anon.get('sys/seal-status')).body).toMatchObject({ sealed: true, progress: 1 });
      await anon.put('sys/unseal', { reset: true });
    });

    it('stays sealed when the shares do not combine to the root key', async () => {
      const bogus = () => Buffer.from(keys[0]!, 'base64').map((b, i) => (i === 0 ? b : b ^ 0x5a));
      await anon.put('sys/unseal', { key: Buffer.from(bogus()).toString('base64') });
      const second = await anon.put('sys/unseal', { key: keys[1] });
      expect(second.status).toBeGreaterThanOrEqual(400);
      const status = (await anon.get('sys/seal-status')).body;
      expect(status).toMatchObject({ sealed: true, progress: 0 });
    });

    it('unseals with the threshold of shares, mixing base64 and hex', async () => {
      expect((await anon.put('sys/unseal', { key: keys[2] })).body).toMatchObject({
        sealed: true,
        progress: 1,
      });
      const done = await anon.put('sys/unseal', { key: keysHex[0] });
      expect(done.status).toBe(200);
      expect(done.body).toMatchObject({ sealed: false, t: 2, n: 3, progress: 0 });
      const status = (await anon.get('sys/seal-status')).body;
      expect(status).toMatchObject({ type: 'shamir', initialized: true, sealed: false });
      expect(typeof status.version).toBe('string');
      expect(status.cluster_id).toEqual(expect.any(String));
      await waitForEngines(cluster.baseUrl, root.token!);
    });
  });

  describe('health when active', () => {
    it('answers 200 with the node state, or the activecode given', async () => {
      const res = await anon.get('sys/health');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        initialized: true,
        sealed: false,
        standby: false,
        performance_standby: false,
      });
      expect(typeof res.body.server_time_utc).toBe('number');
      expect((await anon.get('sys/health', { query: { activecode: 201 } })).status).toBe(201);
      const ok = await anon.get('sys/health', {
        query: {
          standbyok: true,
          perfstandbyok: true,
          standbycode: 299,
          drsecondarycode: 298,
          performancestandbycode: 297,
        },
      });
      expect(ok.status).toBe(200);
      const head = await anon.head('sys/health');
      expect(head.status).toBe(200);
      expect(head.text).toBe('');
    });

    it('rejects a code that is not an integer', async () => {
      expect((await anon.get('sys/health', { query: { activecode: 'x' } })).status).toBe(400);
    });
  });

  describe('seal', () => {
    const value = `sealed-value-${Date.now()}`;

    it('keeps data across seal and unseal', async () => {
      await ensureKvV2(cluster.baseUrl, root.token!, 'secret');
      expect((await root.put('secret/data/seal-test', { data: { value } })).status).toBe(200);
    });

    it('needs sudo on sys/seal', async () => {
      const created = await root.post('auth/token/create', { policies: ['default'] });
      const user = api(cluster.baseUrl, created.body.auth.client_token);
      const res = await user.put('sys/seal');
      expect(res.status).toBe(403);
      expect((await anon.get('sys/seal-status')).body.sealed).toBe(false);
    });

    it('seals with the root token: 204, then every authenticated route answers 503', async () => {
      expect((await root.put('sys/seal')).status).toBe(204);
      expect((await anon.get('sys/seal-status')).body.sealed).toBe(true);
      expect((await anon.get('sys/health')).status).toBe(503);
      expect((await root.get('secret/data/seal-test')).status).toBe(503);
    });

    it('unseals again and the data written before is readable on every kv replica', async () => {
      await anon.put('sys/unseal', { key: keys[1] });
      expect((await anon.put('sys/unseal', { key: keys[2] })).body.sealed).toBe(false);
      await waitForEngines(cluster.baseUrl, root.token!);
      const res = await root.get('secret/data/seal-test');
      expect(res.status).toBe(200);
      expect(res.body.data.data).toEqual({ value });
    });
  });
});

describe('dev server: one share, unsealed at start', () => {
  let dev: DevServer;

  beforeAll(async () => {
    dev = await startDevServer();
  }, START_TIMEOUT_MS);
  afterAll(() => dev?.stop());

  it('is initialised and unsealed with a single share', async () => {
    expect((await dev.client.get('sys/init')).body).toEqual({ initialized: true });
    expect((await dev.client.get('sys/seal-status')).body).toMatchObject({ sealed: false, t: 1, n: 1 });
    expect((await dev.client.get('sys/health')).status).toBe(200);
  });

  it('refuses a second init', async () => {
    expect((await dev.client.put('sys/init', { secret_shares: 1, secret_threshold: 1 })).status).toBe(400);
  });

  it('seals, and unseals with the printed key (base64) and with its hex form', async () => {
    await dev.client.put('secret/data/dev-seal', { data: { a: 'b' } });
    expect((await dev.client.put('sys/seal')).status).toBe(204);
    expect((await dev.client.get('sys/health')).status).toBe(503);
    const unsealed = await dev.client.put('sys/unseal', { key: dev.unsealKey });
    expect(unsealed.body).toMatchObject({ sealed: false });
    await waitForEngines(dev.baseUrl, dev.rootToken);
    expect((await dev.client.get('secret/data/dev-seal')).body.data.data).toEqual({ a: 'b' });

    expect((await dev.client.put('sys/seal')).status).toBe(204);
    const hex = Buffer.from(dev.unsealKey, 'base64').toString('hex');
    expect((await dev.client.put('sys/unseal', { key: hex })).body).toMatchObject({ sealed: false });
    await waitForEngines(dev.baseUrl, dev.rootToken);
    expect((await dev.client.get('secret/data/dev-seal')).body.data.data).toEqual({ a: 'b' });
  });
});
