import Vault from 'hashi-vault-js';
import { startDevServer, uniq, type DevServer } from '../support';

jest.setTimeout(60_000);

/** What hashi-vault-js rejects with: the axios error, marked as Vault's. */
interface HashiVaultError {
  isVaultError?: boolean;
  response?: { status: number; data: { errors?: string[] } };
}

/**
 * hashi-vault-js, unchanged, against the dev server. Every call takes the token explicitly;
 * results are the auth block, else `data`, else the body, else {status, statusText}. It has no
 * calls for mounts, policies or identity, so those are set up over plain HTTP here, and only
 * what the client offers is asserted through it.
 */
describe('dev: the hashi-vault-js client', () => {
  let dev: DevServer;
  let vault: Vault;
  let root: string;

  const failure = async (
    call: PromiseLike<unknown>,
  ): Promise<{ status: number; errors: string[] | undefined }> => {
    try {
      await call;
    } catch (error) {
      const e = error as HashiVaultError;
      if (!e.isVaultError || !e.response) throw error;
      return { status: e.response.status, errors: e.response.data.errors };
    }
    throw new Error('the call succeeded, expected a failure');
  };

  beforeAll(async () => {
    dev = await startDevServer();
    root = dev.rootToken;
    vault = new Vault({ baseUrl: `${dev.baseUrl}/v1`, timeout: 10_000 });
  }, 120_000);
  afterAll(() => dev?.stop());

  it('reads health and seal status', async () => {
    expect(await vault.healthCheck()).toMatchObject({ initialized: true, sealed: false, standby: false });
    expect(await vault.sealStatus()).toMatchObject({ type: 'shamir', sealed: false, t: 1, n: 1 });
  });

  it('writes, reads, lists, deletes, undeletes, destroys and eliminates kv v2 secrets', async () => {
    const name = `${uniq('hvjs')}/db`;
    expect(await vault.createKVSecret(root, name, { user: 'admin' })).toMatchObject({
      version: 1,
      destroyed: false,
    });
    expect(await vault.updateKVSecret(root, name, { user: 'root' }, 1)).toMatchObject({ version: 2 });
    expect(await failure(vault.updateKVSecret(root, name, { user: 'late' }, 1))).toMatchObject({
      status: 400,
    });
    expect(await vault.readKVSecret(root, name)).toMatchObject({
      data: { user: 'root' },
      metadata: { version: 2 },
    });
    expect(await vault.readKVSecret(root, name, 1)).toMatchObject({ data: { user: 'admin' } });
    expect(await vault.listKVSecrets(root, `${name.split('/')[0]}/`)).toEqual({ keys: ['db'] });
    expect(await vault.readKVSecretMeta(root, name)).toMatchObject({ current_version: 2, max_versions: 0 });
    expect(await vault.updateKVSecretMeta(root, name, { max_versions: 7 } as never)).toEqual({
      status: 204,
      statusText: 'No Content',
    });
    expect(await vault.readKVSecretMeta(root, name)).toMatchObject({ max_versions: 7 });
    await vault.deleteLatestVerKVSecret(root, name);
    expect(await failure(vault.readKVSecret(root, name))).toMatchObject({ status: 404 });
    await vault.undeleteVersionsKVSecret(root, name, [2]);
    expect(await vault.readKVSecret(root, name)).toMatchObject({ data: { user: 'root' } });
    await vault.deleteVersionsKVSecret(root, name, [1]);
    await vault.destroyVersionsKVSecret(root, name, [1]);
    const versions = (
      (await vault.readKVSecretMeta(root, name)) as { versions: Record<string, { destroyed: boolean }> }
    ).versions;
    expect(versions['1']?.destroyed).toBe(true);
    await vault.eliminateKVSecret(root, name);
    expect(await failure(vault.readKVSecretMeta(root, name))).toMatchObject({ status: 404 });
    expect(await vault.readKVEngineConfig(root)).toMatchObject({ cas_required: false });
  });

  it('reads and writes kv v2 at another mount, enabled over HTTP', async () => {
    const mount = uniq('hvjs-kv');
    expect(
      (await dev.client.post(`sys/mounts/${mount}`, { type: 'kv', options: { version: '2' } })).status,
    ).toBe(204);
    await vault.createKVSecret(root, 'app', { k: 'v' }, mount);
    expect(await vault.readKVSecret(root, 'app', undefined, mount)).toMatchObject({ data: { k: 'v' } });
    await vault.updateKVEngineConfig(root, { max_versions: 3 }, mount);
    expect(await vault.readKVEngineConfig(root, mount)).toMatchObject({ max_versions: 3 });
  });

  it('creates a token with policies, ttl and meta, looks it up, renews and revokes it', async () => {
    const auth = (await vault.createToken(root, {
      policies: ['default'] as never,
      ttl: '1h',
      meta: { team: 'infra' },
      display_name: 'deployer',
    })) as Record<string, any>;
    expect(auth).toMatchObject({
      policies: ['default'],
      metadata: { team: 'infra' },
      lease_duration: 3600,
      renewable: true,
      token_type: 'service',
    });
    const token: string = auth.client_token;
    expect(await vault.lookupToken(root, token)).toMatchObject({
      id: token,
      display_name: 'token-deployer',
      meta: { team: 'infra' },
      type: 'service',
    });
    expect(await vault.lookupSelfToken(token)).toMatchObject({ id: token, accessor: auth.accessor });
    expect(await vault.lookupAccessor(root, auth.accessor)).toMatchObject({
      id: '',
      accessor: auth.accessor,
    });
    expect(((await vault.listAccessors(root)) as { keys: string[] }).keys).toContain(auth.accessor);
    expect(await vault.renewSelfToken(token, '20m')).toMatchObject({
      client_token: token,
      lease_duration: 1200,
    });
    // no increment: hashi-vault-js leaves the field out
    expect(await vault.renewSelfToken(token, undefined as never)).toMatchObject({ lease_duration: 3600 });
    expect(await vault.renewToken(root, token, '10m')).toMatchObject({ lease_duration: 600 });
    expect(await vault.sysCapabilitiesSelf(token, ['auth/token/lookup-self', 'secret/data/x'])).toMatchObject(
      {
        'auth/token/lookup-self': ['read'],
        'secret/data/x': ['deny'],
      },
    );
    expect(await vault.sysCapabilities(root, token, ['auth/token/renew-self'])).toMatchObject({
      'auth/token/renew-self': ['update'],
    });
    expect(await vault.revokeToken(root, token)).toEqual({ status: 204, statusText: 'No Content' });
    expect(await failure(vault.lookupToken(root, token))).toEqual({ status: 403, errors: ['bad token'] });
    expect(await failure(vault.lookupSelfToken(token))).toMatchObject({ status: 403 });
  });

  it('renews by accessor, which sends increment null when none is given', async () => {
    const auth = (await vault.createToken(root, { ttl: '1h' })) as Record<string, any>;
    expect(await vault.renewAccessor(root, auth.accessor, '15m')).toMatchObject({ lease_duration: 900 });
    expect(await vault.renewAccessor(root, auth.accessor, undefined as never)).toMatchObject({
      client_token: '',
      lease_duration: 3600,
    });
    expect(await vault.revokeAccessor(root, auth.accessor)).toEqual({
      status: 204,
      statusText: 'No Content',
    });
    expect(await failure(vault.lookupAccessor(root, auth.accessor))).toEqual({
      status: 400,
      errors: ['invalid accessor'],
    });
  });

  it('limits a token to num_uses and revokes itself', async () => {
    const auth = (await vault.createToken(root, { num_uses: 3 })) as Record<string, any>;
    const token: string = auth.client_token;
    expect(await vault.lookupSelfToken(token)).toMatchObject({ num_uses: 2 });
    expect(await vault.revokeSelfToken(token)).toEqual({ status: 204, statusText: 'No Content' });
    expect(await failure(vault.lookupSelfToken(token))).toMatchObject({ status: 403 });
  });

  it('manages userpass users (method enabled over HTTP) and logs in', async () => {
    const path = uniq('hvjs-up');
    const mount = `auth/${path}`;
    expect((await dev.client.post(`sys/auth/${path}`, { type: 'userpass' })).status).toBe(204);
    await vault.createUserpassUser(root, 'erin', 'pw-1', ['default'], mount);
    expect(await vault.readUserpassUser(root, 'erin', mount)).toMatchObject({ token_policies: ['default'] });
    expect(await vault.listUserpassUsers(root, mount)).toEqual({ keys: ['erin'] });
    const login = (await vault.loginWithUserpass('erin', 'pw-1', mount)) as Record<string, any>;
    expect(login).toMatchObject({ policies: ['default'], metadata: { username: 'erin' } });
    expect(await vault.lookupSelfToken(login.client_token)).toMatchObject({ path: `${mount}/login/erin` });
    await vault.updateUserpassPassword(root, 'erin', 'pw-2', mount);
    expect(await failure(vault.loginWithUserpass('erin', 'pw-1', mount))).toEqual({
      status: 400,
      errors: ['invalid username or password'],
    });
    await vault.updateUserpassPolicies(root, 'erin', ['default', 'extra'], mount);
    expect(await vault.readUserpassUser(root, 'erin', mount)).toMatchObject({
      token_policies: ['default', 'extra'],
    });
    const again = (await vault.loginWithUserpass('erin', 'pw-2', mount)) as Record<string, any>;
    expect(again.token_policies).toEqual(['default', 'extra']);
    expect(again.entity_id).toBe(login.entity_id);
    await vault.deleteUserpassUser(root, 'erin', mount);
    expect(await failure(vault.readUserpassUser(root, 'erin', mount))).toMatchObject({ status: 404 });
  });

  it("reads an entity's policies through a login token's capabilities (identity set up over HTTP)", async () => {
    const policy = uniq('hvjs-ent');
    await dev.client.put(`sys/policy/${policy}`, {
      policy: 'path "secret/data/ent/*" { capabilities = ["read"] }',
    });
    const path = uniq('hvjs-id');
    await dev.client.post(`sys/auth/${path}`, { type: 'userpass' });
    await vault.createUserpassUser(root, 'frank', 'pw', [], `auth/${path}`);
    const login = (await vault.loginWithUserpass('frank', 'pw', `auth/${path}`)) as Record<string, any>;
    const entity = await dev.client.post(`identity/entity/id/${login.entity_id}`, { policies: [policy] });
    expect(entity.status).toBe(204);
    expect(await vault.sysCapabilitiesSelf(login.client_token, ['secret/data/ent/x'])).toMatchObject({
      'secret/data/ent/x': ['read'],
    });
    expect(await vault.lookupSelfToken(login.client_token)).toMatchObject({
      entity_id: login.entity_id,
      identity_policies: [policy],
    });
  });
});
