import { coreTokenResolve, tokenContracts, type CallerContext, type MountInfo } from '@coffer/contracts';
import { startCoreSysHarness, type DevCoreSysHarness } from '../test-support/dev-harness';

jest.setTimeout(30_000);

let h: DevCoreSysHarness;
let tokenMount: MountInfo;

beforeAll(async () => {
  h = await startCoreSysHarness('batch-tokens');
  tokenMount = h.mount('auth/token/');
});

afterAll(async () => {
  await h?.close();
});

const create = async (body: Record<string, unknown>, caller?: CallerContext) => {
  const res = await h.call(tokenContracts.create, { mount: tokenMount, path: 'create', body }, caller);
  if (!res.auth) throw new Error('no auth block');
  return res.auth;
};
const createFails = (body: Record<string, unknown>, caller?: CallerContext) =>
  h.fail(tokenContracts.create, { mount: tokenMount, path: 'create', body }, caller);
const resolve = (token: string) => h.client.request(coreTokenResolve, { token });
const accessors = async () =>
  (await h.call(tokenContracts.listAccessors, { mount: tokenMount, path: 'accessors' })).data?.keys ?? [];
const lookup = (token: string) =>
  h.call(tokenContracts.lookup, { mount: tokenMount, path: 'lookup', body: { token } });
const isInvalid = async (token: string) => {
  try {
    await resolve(token);
    return false;
  } catch (e) {
    return (e as { code?: string }).code === 'invalid_token';
  }
};

describe('batch tokens', () => {
  it('are self-contained: hvb. prefix, no accessor, not renewable, nothing stored', async () => {
    const before = await accessors();
    const auth = await create({ type: 'batch', policies: ['web'], ttl: '1h', renewable: true });
    expect(auth.client_token).toMatch(/^hvb\.[A-Za-z0-9_-]+$/);
    expect(auth).toMatchObject({ accessor: '', token_type: 'batch', renewable: false, lease_duration: 3600 });
    expect(await accessors()).toEqual(before);
    const resolved = await resolve(auth.client_token);
    expect(resolved).toMatchObject({ accessor: '', policies: ['default', 'web'] });
    expect((await lookup(auth.client_token)).data).toMatchObject({
      id: auth.client_token,
      accessor: '',
      type: 'batch',
      renewable: false,
      policies: ['default', 'web'],
      path: 'auth/token/create',
    });
  });

  it('look themselves up through the forwarded header', async () => {
    const auth = await create({ type: 'batch', policies: ['web'] });
    const caller = await h.callerFor(auth.client_token);
    const self = await h.call(
      tokenContracts.lookupSelf,
      { mount: tokenMount, path: 'lookup-self', headers: { 'x-vault-token': auth.client_token } },
      caller,
    );
    expect(self.data).toMatchObject({ id: auth.client_token, type: 'batch' });
  });

  it('cannot be renewed, revoked or create children', async () => {
    const auth = await create({ type: 'batch', policies: ['web'] });
    const token = auth.client_token;
    const caller = await h.callerFor(token);
    expect(
      await h.fail(tokenContracts.renew, { mount: tokenMount, path: 'renew', body: { token } }),
    ).toMatchObject({ code: 'invalid_request', message: 'batch tokens cannot be renewed' });
    expect(
      await h.fail(tokenContracts.renewSelf, { mount: tokenMount, path: 'renew-self', body: {} }, caller),
    ).toMatchObject({ message: 'batch tokens cannot be renewed' });
    expect(
      await h.fail(tokenContracts.revoke, { mount: tokenMount, path: 'revoke', body: { token } }),
    ).toMatchObject({ message: 'batch tokens cannot be revoked' });
    expect(await createFails({ policies: ['web'] }, caller)).toMatchObject({
      code: 'invalid_request',
      message: 'batch tokens cannot create more tokens',
    });
    expect((await resolve(token)).policies).toContain('web');
  });

  it('die at their expiry', async () => {
    const auth = await create({ type: 'batch', policies: ['web'], ttl: '1m' });
    expect(await isInvalid(auth.client_token)).toBe(false);
    h.clock.now = new Date(h.clock.now.getTime() + 61_000);
    expect(await isInvalid(auth.client_token)).toBe(true);
  });

  it('die with their parent unless orphans, and are not cacheable while they have one', async () => {
    const parent = await create({ policies: ['web'], ttl: '1h' });
    const caller = await h.callerFor(parent.client_token);
    const child = await create({ type: 'batch', ttl: '30m' }, caller);
    const orphan = await create({ type: 'batch', ttl: '30m', no_parent: true, policies: ['web'] });
    expect((await resolve(child.client_token)).cacheable).toBe(false);
    expect((await resolve(orphan.client_token)).cacheable).toBe(true);
    await h.call(tokenContracts.revoke, {
      mount: tokenMount,
      path: 'revoke',
      body: { token: parent.client_token },
    });
    expect(await isInvalid(child.client_token)).toBe(true);
    expect(await isInvalid(orphan.client_token)).toBe(false);
  });

  it('refuse forged, tampered and malformed tokens', async () => {
    const auth = await create({ type: 'batch', policies: ['web'] });
    const body = auth.client_token.slice(4);
    const flipped = body.slice(0, 20) + (body[20] === 'A' ? 'B' : 'A') + body.slice(21);
    for (const bad of [`hvb.${flipped}`, 'hvb.', 'hvb.!!!', 'hvb.AAAA']) {
      expect(await isInvalid(bad)).toBe(true);
    }
  });

  it("refuse Vault's bad combinations, nothing stored", async () => {
    const before = await accessors();
    const cases: [Record<string, unknown>, string][] = [
      [{ type: 'batch', num_uses: 2 }, 'batch tokens cannot have "num_uses" set'],
      [{ type: 'batch', period: '1h' }, 'batch tokens cannot have "period" set'],
      [{ type: 'batch', explicit_max_ttl: '1h' }, 'batch tokens cannot have "explicit_max_ttl" set'],
      [{ type: 'batch', policies: ['root'] }, 'batch tokens cannot be root tokens'],
      [{ type: 'bulk' }, "invalid 'token_type' value"],
    ];
    for (const [body, message] of cases) {
      expect(await createFails(body)).toMatchObject({ code: 'invalid_request', message });
    }
    expect(await accessors()).toEqual(before);
  });

  it("come from a role's token_type", async () => {
    await h.call(tokenContracts.roleWrite, {
      mount: tokenMount,
      operation: 'create',
      path: 'roles/batcher',
      params: { name: 'batcher' },
      body: { token_type: 'batch', orphan: true, renewable: false, allowed_policies: 'web' },
    });
    const res = await h.call(tokenContracts.createWithRole, {
      mount: tokenMount,
      path: 'create/batcher',
      params: { role: 'batcher' },
      body: {},
    });
    expect(res.auth?.client_token).toMatch(/^hvb\./);
    expect(res.auth).toMatchObject({ token_type: 'batch', orphan: true, renewable: false });
    expect((await lookup(res.auth?.client_token ?? '')).data).toMatchObject({
      path: 'auth/token/create/batcher',
      role: 'batcher',
      type: 'batch',
    });
  });
});
