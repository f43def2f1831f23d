import { readFile, writeFile } from 'node:fs/promises';
import { freePort, ManagedProcess, waitForHttp } from '@coffer/testing';
import { api, startCluster, START_TIMEOUT_MS, uniq, type ApiClient, type Cluster } from './support';
import { appEntry } from './support/launch/cluster-launcher';
import { echoLines } from './support/logs';

jest.setTimeout(120_000);

/**
 * Cluster mode with two gateway replicas: a namespace change made through one is seen by the
 * other on its next request (mount tables, policies and tokens are cached per gateway and
 * dropped by core-sys's broadcasts).
 */
describe('cluster: two gateways and namespaces', () => {
  let cluster: Cluster;
  let second: ManagedProcess | undefined;
  let one: ApiClient;
  let two: ApiClient;

  beforeAll(async () => {
    cluster = await startCluster({ label: 'ns-gateways', readyTimeoutMs: 240_000 });
    const [apiPort, opsPort] = await Promise.all([freePort(), freePort()]);
    const config = await readFile(cluster.configPath, 'utf8');
    const apiAddress = new URL(cluster.baseUrl).host;
    const secondConfig = `${cluster.configPath}.gateway-2.hcl`;
    await writeFile(secondConfig, config.replace(`"${apiAddress}"`, `"127.0.0.1:${apiPort}"`), {
      mode: 0o600,
    });
    second = ManagedProcess.launch({
      name: 'gateway-2',
      entry: appEntry('gateway'),
      args: ['-config', secondConfig],
      env: { COFFER_OPS_LISTEN_ADDRESS: `127.0.0.1:${opsPort}` },
      onLine: echoLines('gateway-2'),
    });
    await waitForHttp(`http://127.0.0.1:${opsPort}/health`, { timeoutMs: 240_000 });
    one = cluster.client;
    two = api(`http://127.0.0.1:${apiPort}`, cluster.rootToken);
  }, 2 * START_TIMEOUT_MS);
  afterAll(async () => {
    await second?.stop();
    await cluster?.stop();
  });

  it('a namespace created through one gateway serves through the other at once', async () => {
    const ns = uniq('gw');
    // the second gateway has its mount table cached already
    expect((await two.get(`${ns}/sys/mounts`)).status).toBe(404);
    expect((await one.post(`sys/namespaces/${ns}`, {})).status).toBe(200);
    expect((await two.get(`sys/namespaces/${ns}`)).body.data.path).toBe(`${ns}/`);
    expect(
      (await one.post(`${ns}/sys/mounts/secret`, { type: 'kv', options: { version: '2' } })).status,
    ).toBe(204);
    expect((await two.put(`${ns}/secret/data/x`, { data: { v: '1' } })).status).toBe(200);
    expect((await one.get(`${ns}/secret/data/x`)).body.data.data).toEqual({ v: '1' });
  });

  it("a namespace policy change made through one gateway applies on the other's next request", async () => {
    const ns = uniq('gwpol');
    await one.post(`sys/namespaces/${ns}`, {});
    await one.post(`${ns}/sys/mounts/secret`, { type: 'kv', options: { version: '2' } });
    await one.put(`${ns}/secret/data/x`, { data: { v: '1' } });
    await one.put(`${ns}/sys/policies/acl/reader`, {
      policy: 'path "secret/data/*" { capabilities = ["read"] }',
    });
    const created = await one.post(`${ns}/auth/token/create`, { policies: ['reader'] });
    const token = created.body.auth.client_token as string;
    const viaTwo = two.withToken(token);
    expect((await viaTwo.get(`${ns}/secret/data/x`)).status).toBe(200);
    await one.put(`${ns}/sys/policies/acl/reader`, {
      policy: 'path "secret/data/other" { capabilities = ["read"] }',
    });
    expect((await viaTwo.get(`${ns}/secret/data/x`)).status).toBe(403);
  });

  it('a namespace deleted through one gateway is gone on the other, its tokens with it', async () => {
    const ns = uniq('gwdel');
    await one.post(`sys/namespaces/${ns}`, {});
    await one.post(`${ns}/sys/mounts/secret`, { type: 'kv', options: { version: '2' } });
    await one.put(`${ns}/secret/data/x`, { data: { v: '1' } });
    const created = await one.post(`${ns}/auth/token/create`, { policies: ['default'] });
    const viaTwo = two.withToken(created.body.auth.client_token as string);
    expect((await viaTwo.get(`${ns}/auth/token/lookup-self`)).status).toBe(200);
    expect((await two.get(`${ns}/secret/data/x`)).status).toBe(200);
    expect((await one.delete(`sys/namespaces/${ns}`)).status).toBe(204);
    expect((await viaTwo.get(`${ns}/auth/token/lookup-self`)).status).toBe(403);
    expect((await two.get(`${ns}/secret/data/x`)).status).toBe(404);
    expect((await two.get(`sys/namespaces/${ns}`)).status).toBe(404);
  });
});
