import { readFile, writeFile } from 'node:fs/promises';
import { freePort, ManagedProcess, waitForHttp } from '@coffer/testing';
import { api, startCluster, START_TIMEOUT_MS, uniq, type ApiClient, type Cluster } from './support';

jest.setTimeout(60_000);

// this file's cluster may start on a loaded machine: each process gets 4 minutes to come up
const READY_TIMEOUT_MS = 240_000;
const SLOW_START_MS = START_TIMEOUT_MS + READY_TIMEOUT_MS;

/**
 * Two gateway replicas in front of one cluster: a governing policy written, changed or deleted
 * through one of them applies on the very next request through the other (core-sys broadcasts
 * the change before it answers the write).
 */
describe('cluster: governing policies across two gateway replicas', () => {
  let cluster: Cluster;
  let second: ManagedProcess | undefined;
  let gw1: ApiClient;
  let gw2: ApiClient;

  beforeAll(async () => {
    cluster = await startCluster({ label: 'sentinel-gw', readyTimeoutMs: READY_TIMEOUT_MS });
    const [apiPort, opsPort] = [await freePort(), await freePort()];
    const config = (await readFile(cluster.configPath, 'utf8'))
      .replace(/(purpose\s*=\s*"api"\s*\n\s*address\s*=\s*)"[^"]*"/, `$1"127.0.0.1:${apiPort}"`)
      .replace(/(purpose\s*=\s*"ops"\s*\n\s*address\s*=\s*)"[^"]*"/, `$1"127.0.0.1:${opsPort}"`);
    expect(config).toContain(`127.0.0.1:${apiPort}`);
    expect(config).toContain(`127.0.0.1:${opsPort}`);
    const configPath = `${cluster.configPath}.gateway-2.hcl`;
    await writeFile(configPath, config, { mode: 0o600 });
    second = ManagedProcess.launch({
      name: 'gateway-2',
      entry: 'apps/gateway/src/main.ts',
      args: ['-config', configPath],
    });
    await waitForHttp(`http://127.0.0.1:${opsPort}/health`, {
      timeoutMs: 60_000,
      message: 'gateway-2 ops health',
    });
    gw1 = cluster.client;
    gw2 = api(`http://127.0.0.1:${apiPort}`, cluster.rootToken);
    const acl = 'path "secret/data/*" { capabilities = ["create", "read", "update"] }';
    expect((await gw1.put('sys/policies/acl/writer', { policy: acl })).status).toBe(204);
  }, SLOW_START_MS);
  afterAll(async () => {
    await second?.stop();
    await cluster?.stop();
  });

  const tokenWith = async (...policies: string[]): Promise<string> => {
    const res = await gw1.post('auth/token/create', { policies });
    expect(res.status).toBe(200);
    return res.body.auth.client_token as string;
  };
  const write = (client: ApiClient, token: string, value: string) =>
    client.withToken(token).put('secret/data/replicated/a', { data: { value } });

  it('an EGP written, changed and deleted through one gateway applies at once through the other', async () => {
    const token = await tokenWith('writer');
    // both replicas have loaded (and cached) the empty policy set
    expect((await write(gw1, token, 'x')).status).toBe(200);
    expect((await write(gw2, token, 'x')).status).toBe(200);

    const name = uniq('rep');
    const policy = (allowed: string) => `main = rule { request.data.data.value is "${allowed}" }`;
    const put = (client: ApiClient, allowed: string) =>
      client.put(`sys/policies/egp/${name}`, {
        policy: policy(allowed),
        enforcement_level: 'hard-mandatory',
        paths: 'secret/data/replicated/*',
      });
    expect((await put(gw1, 'y')).status).toBe(204);
    expect((await write(gw2, token, 'x')).status).toBe(403);
    expect((await write(gw2, token, 'y')).status).toBe(200);

    expect((await put(gw2, 'x')).status).toBe(204);
    expect((await write(gw1, token, 'y')).status).toBe(403);
    expect((await write(gw1, token, 'x')).status).toBe(200);

    expect((await gw1.delete(`sys/policies/egp/${name}`)).status).toBe(204);
    expect((await write(gw2, token, 'y')).status).toBe(200);
  });

  it('an RGP change applies at once through the other gateway', async () => {
    const name = uniq('rgp');
    const token = await tokenWith('writer', name);
    expect((await write(gw2, token, 'x')).status).toBe(200);
    const put = (level: string) =>
      gw1.put(`sys/policies/rgp/${name}`, {
        policy: 'main = rule { request.operation is "read" }',
        enforcement_level: level,
      });
    expect((await put('hard-mandatory')).status).toBe(204);
    const denied = await write(gw2, token, 'x');
    expect(denied.status).toBe(403);
    expect(denied.body.errors[0]).toContain(`rgp standard policy "root/${name}"`);
    expect((await put('advisory')).status).toBe(204);
    const warned = await write(gw2, token, 'x');
    expect(warned.status).toBe(200);
    expect(warned.body.warnings).toEqual([`advisory rgp "${name}" failed`]);
  });
});
