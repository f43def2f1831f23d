import nodeVault from 'node-vault';
import { startDevServer, uniq, type DevServer } from './support';

jest.setTimeout(60_000);

/** node-vault builds `unwrap` from its command table (POST sys/wrapping/unwrap); its typings omit it. */
interface Unwrapping {
  unwrap(args?: { token: string }): Promise<any>;
}
const unwrapping = (client: nodeVault.client): Unwrapping => client as unknown as Unwrapping;

/** The published node-vault client, unchanged, unwraps a response-wrapped kv v2 secret. */
describe('dev: node-vault unwraps a wrapped secret', () => {
  let dev: DevServer;
  let vault: nodeVault.client;

  beforeAll(async () => {
    dev = await startDevServer();
    vault = nodeVault({ apiVersion: 'v1', endpoint: dev.baseUrl, token: dev.rootToken });
  }, 120_000);
  afterAll(() => dev?.stop());

  it('reads a secret wrapped (X-Vault-Wrap-TTL) and unwraps it, once', async () => {
    const app = uniq('nv-wrap');
    await vault.write(`secret/data/${app}`, { data: { api_key: 'k-123' } });
    const wrapped = await vault.read(`secret/data/${app}`, { headers: { 'X-Vault-Wrap-TTL': '5m' } });
    expect(wrapped.data).toBeNull();
    const wrapToken: string = wrapped.wrap_info.token;

    // as the wrapping token itself, the way a receiving application does it
    const receiver = nodeVault({ apiVersion: 'v1', endpoint: dev.baseUrl, token: wrapToken });
    const unwrapped = await unwrapping(receiver).unwrap();
    expect(unwrapped.data.data).toEqual({ api_key: 'k-123' });
    await expect(unwrapping(vault).unwrap({ token: wrapToken })).rejects.toMatchObject({
      response: { statusCode: 400 },
      message: 'wrapping token is not valid or does not exist',
    });
  });

  it('unwraps with the token parameter', async () => {
    const app = uniq('nv-param');
    await vault.write(`secret/data/${app}`, { data: { user: 'svc' } });
    const wrapped = await vault.read(`secret/data/${app}`, { headers: { 'X-Vault-Wrap-TTL': '60s' } });
    const unwrapped = await unwrapping(vault).unwrap({ token: wrapped.wrap_info.token });
    expect(unwrapped.data.data).toEqual({ user: 'svc' });
  });
});
