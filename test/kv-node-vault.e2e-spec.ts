import nodeVault from 'node-vault';
import { startDevServer, uniq, type DevServer } from './support';

jest.setTimeout(60_000);

/**
 * The published node-vault client, unchanged (npm package, Vault headers and paths), against the
 * dev server: kv v1 and v2 secrets, a policy, a token that the policy then governs.
 */
describe('dev: the node-vault client', () => {
  let dev: DevServer;
  let vault: nodeVault.client;

  beforeAll(async () => {
    dev = await startDevServer();
    vault = nodeVault({ apiVersion: 'v1', endpoint: dev.baseUrl, token: dev.rootToken });
  }, 120_000);
  afterAll(() => dev?.stop());

  it('writes, reads and lists kv v2 secrets', async () => {
    const app = uniq('app');
    const written = await vault.write(`secret/data/${app}/db`, {
      data: { user: 'admin', password: 'p@ss-ü' },
    });
    expect(written.data.version).toBe(1);
    await vault.write(`secret/data/${app}/cache`, { data: { url: 'redis://x' }, options: { cas: 0 } });
    const read = await vault.read(`secret/data/${app}/db`);
    expect(read.data.data).toEqual({ user: 'admin', password: 'p@ss-ü' });
    expect(read.data.metadata.version).toBe(1);
    const listed = await vault.list(`secret/metadata/${app}`);
    expect(listed.data.keys).toEqual(['cache', 'db']);
    await vault.delete(`secret/metadata/${app}/cache`);
    await expect(vault.read(`secret/data/${app}/cache`)).rejects.toMatchObject({
      response: { statusCode: 404 },
    });
  });

  it('writes, reads and lists kv v1 secrets', async () => {
    const mount = uniq('v1');
    await vault.mount({ mount_point: mount, type: 'kv', options: { version: '1' } });
    await vault.write(`${mount}/team/one`, { value: 'first', ttl: '1h' });
    await vault.write(`${mount}/team/nested/two`, { value: 'second' });
    const read = await vault.read(`${mount}/team/one`);
    expect(read.data).toEqual({ value: 'first', ttl: '1h' });
    expect(read.lease_duration).toBe(3600);
    expect((await vault.list(`${mount}/team`)).data.keys).toEqual(['nested/', 'one']);
    await vault.delete(`${mount}/team/one`);
    await expect(vault.read(`${mount}/team/one`)).rejects.toMatchObject({ response: { statusCode: 404 } });
  });

  it('manages a policy and creates a token that the policy governs', async () => {
    const name = uniq('readers');
    const app = uniq('pol');
    await vault.write(`secret/data/${app}/x`, { data: { v: 'visible' } });
    const rules = `path "secret/data/${app}/*" { capabilities = ["read", "list"] }`;
    await vault.addPolicy({ name, rules });
    expect((await vault.policies()).policies).toContain(name);
    expect((await vault.getPolicy({ name })).rules).toBe(rules);

    // tokenCreate makes the client it is called on use the new token (node-vault's tokenSource)
    const issuer = nodeVault({ apiVersion: 'v1', endpoint: dev.baseUrl, token: dev.rootToken });
    const created = await issuer.tokenCreate({ policies: [name], ttl: '10m' });
    const token: string = created.auth.client_token;
    expect(created.auth.policies).toEqual(expect.arrayContaining([name]));
    expect(issuer.token).toBe(token);
    const limited = nodeVault({ apiVersion: 'v1', endpoint: dev.baseUrl, token });
    expect((await limited.read(`secret/data/${app}/x`)).data.data).toEqual({ v: 'visible' });
    await expect(limited.write(`secret/data/${app}/x`, { data: { v: 'nope' } })).rejects.toMatchObject({
      response: { statusCode: 403 },
    });
    await vault.removePolicy({ name });
    await expect(limited.read(`secret/data/${app}/x`)).rejects.toMatchObject({
      response: { statusCode: 403 },
    });
  });
});
