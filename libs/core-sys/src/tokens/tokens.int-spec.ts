import {
  coreTokenAlive,
  coreTokenResolve,
  sysContracts,
  tokenContracts,
  tokenRevoked,
  type AuthBlock,
  type CallerContext,
  type MountInfo,
} from '@coffer/contracts';
import { waitFor } from '@coffer/testing';
import { TokenRevocationService } from './token-revocation.service';
import { TokenSweeper } from './token-sweeper';
import { startCoreSysHarness, type DevCoreSysHarness } from '../test-support/dev-harness';

jest.setTimeout(30_000);

let h: DevCoreSysHarness;
let tokenMount: MountInfo;

beforeAll(async () => {
  h = await startCoreSysHarness('tokens');
  tokenMount = h.mount('auth/token/');
});

afterAll(async () => {
  await h?.close();
});

interface Created {
  token: string;
  auth: AuthBlock;
  warnings: string[];
}

async function create(
  body: Record<string, unknown> = {},
  caller?: CallerContext,
  orphan = false,
): Promise<Created> {
  const contract = orphan ? tokenContracts.createOrphan : tokenContracts.create;
  const res = await h.call(
    contract,
    { mount: tokenMount, path: orphan ? 'create-orphan' : 'create', body },
    caller,
  );
  if (!res.auth) throw new Error('no auth block');
  return { token: res.auth.client_token, auth: res.auth, warnings: res.warnings };
}

const resolve = (token: string) => h.client.request(coreTokenResolve, { token });
const alive = async (tokenRef: string) =>
  (await h.client.request(coreTokenAlive, { tokenRefs: [tokenRef] })).alive.includes(tokenRef);
const lookup = (token: string) =>
  h.call(tokenContracts.lookup, { mount: tokenMount, path: 'lookup', body: { token } });
const invalid = async (token: string) => {
  try {
    await resolve(token);
    return false;
  } catch (e) {
    return (e as { code?: string }).code === 'invalid_token';
  }
};

describe('root token', () => {
  it('resolves with the root policy, never expiring, cacheable', async () => {
    const r = await resolve(h.rootToken);
    expect(r).toMatchObject({
      policies: ['root'],
      identityPolicies: [],
      expiresAt: 0,
      cacheable: true,
      displayName: 'root',
    });
    expect(h.rootToken).toMatch(/^hvs\.[0-9A-Za-z]{24,}$/);
  });

  it('rejects unknown tokens as invalid', async () => {
    await expect(resolve('hvs.nope')).rejects.toMatchObject({
      code: 'invalid_token',
      message: 'permission denied',
    });
  });
});

describe('auth/token/create and lookups', () => {
  it("creates a child with Vault's auth block and lookup data", async () => {
    const { token, auth, warnings } = await create({
      policies: ['web'],
      meta: { app: 'x' },
      display_name: 'ci bot',
    });
    expect(auth).toMatchObject({
      accessor: expect.stringMatching(/^[0-9A-Za-z]{24}$/),
      policies: ['default', 'web'],
      token_policies: ['default', 'web'],
      metadata: { app: 'x' },
      lease_duration: 768 * 3600,
      renewable: true,
      entity_id: '',
      token_type: 'service',
      orphan: false,
      mfa_requirement: null,
      num_uses: 0,
    });
    expect(warnings).toEqual(['Policy "web" does not exist']);

    const looked = await lookup(token);
    expect(looked.data).toMatchObject({
      id: token,
      accessor: auth.accessor,
      display_name: 'token-ci-bot',
      path: 'auth/token/create',
      policies: ['default', 'web'],
      meta: { app: 'x' },
      orphan: false,
      creation_ttl: 768 * 3600,
      explicit_max_ttl: 0,
      num_uses: 0,
      renewable: true,
      type: 'service',
      entity_id: '',
    });
    expect(typeof (looked.data as { expire_time: unknown }).expire_time).toBe('string');

    const byAccessor = await h.call(tokenContracts.lookupAccessor, {
      mount: tokenMount,
      path: 'lookup-accessor',
      body: { accessor: auth.accessor },
    });
    expect(byAccessor.data).toMatchObject({ id: '', accessor: auth.accessor });
  });

  it("answers lookup-self with the id only when the forwarded token is the caller's", async () => {
    const { token } = await create({ policies: ['web'] });
    const caller = await h.callerFor(token);
    const self = await h.call(
      tokenContracts.lookupSelf,
      { mount: tokenMount, path: 'lookup-self', operation: 'read', headers: { 'x-vault-token': token } },
      caller,
    );
    expect(self.data).toMatchObject({ id: token, accessor: caller.accessor });
    const spoofed = await h.call(
      tokenContracts.lookupSelf,
      { mount: tokenMount, path: 'lookup-self', headers: { 'x-service-token': h.rootToken } },
      caller,
    );
    expect(spoofed.data).toMatchObject({ id: '', accessor: caller.accessor });
  });

  it('keeps non-root callers within their own policies', async () => {
    const { token } = await create({ policies: ['web'] });
    const caller = await h.callerFor(token);
    expect(
      await h.fail(
        tokenContracts.create,
        { mount: tokenMount, path: 'create', body: { policies: ['admin'] } },
        caller,
      ),
    ).toMatchObject({
      code: 'invalid_request',
      message: 'child policies must be subset of parent',
    });
    expect(
      await h.fail(
        tokenContracts.create,
        { mount: tokenMount, path: 'create', body: { no_parent: true } },
        caller,
      ),
    ).toMatchObject({
      message: 'root or sudo privileges required to create orphan token',
    });
    const child = await create({ policies: ['web'], no_default_policy: true }, caller);
    expect(child.auth.policies).toEqual(['web']);
    const orphan = await create({}, caller, true);
    expect(orphan.auth.orphan).toBe(true);
  });

  it('gives root a custom id, once', async () => {
    const { token } = await create({ id: 'my-custom-token' });
    expect(token).toBe('my-custom-token');
    expect((await resolve('my-custom-token')).policies).toEqual(['root']);
    expect(
      await h.fail(tokenContracts.create, {
        mount: tokenMount,
        path: 'create',
        body: { id: 'my-custom-token' },
      }),
    ).toMatchObject({
      message: 'cannot create a token with a duplicate ID',
    });
  });

  it('lists accessors', async () => {
    const { auth } = await create();
    const res = await h.call(tokenContracts.listAccessors, {
      mount: tokenMount,
      path: 'accessors',
      operation: 'list',
    });
    expect((res.data as { keys: string[] }).keys).toContain(auth.accessor);
  });
});

describe('renewal', () => {
  it('renews by token, self and accessor within explicit_max_ttl', async () => {
    const { token, auth } = await create({ ttl: '10m', explicit_max_ttl: '1h', policies: ['web'] });
    expect(auth.lease_duration).toBe(600);
    const renewed = await h.call(tokenContracts.renew, {
      mount: tokenMount,
      path: 'renew',
      body: { token, increment: '30m' },
    });
    expect(renewed.auth).toMatchObject({
      client_token: token,
      accessor: auth.accessor,
      lease_duration: 1800,
    });

    const caller = await h.callerFor(token);
    const self = await h.call(
      tokenContracts.renewSelf,
      {
        mount: tokenMount,
        path: 'renew-self',
        body: { increment: 7200 },
        headers: { 'x-vault-token': token },
      },
      caller,
    );
    expect(self.auth?.client_token).toBe(token);
    expect(self.auth?.lease_duration).toBeLessThanOrEqual(3600);
    expect(self.warnings[0]).toContain('TTL value is capped accordingly');

    const byAccessor = await h.call(tokenContracts.renewAccessor, {
      mount: tokenMount,
      path: 'renew-accessor',
      body: { accessor: auth.accessor },
    });
    expect(byAccessor.auth).toMatchObject({ client_token: '', lease_duration: 600 });
  });

  it('refuses what Vault refuses', async () => {
    const { token } = await create({ renewable: false, ttl: '1h' });
    expect(
      await h.fail(tokenContracts.renew, { mount: tokenMount, path: 'renew', body: { token } }),
    ).toMatchObject({ message: 'lease is not renewable' });
    expect(
      await h.fail(tokenContracts.renew, { mount: tokenMount, path: 'renew', body: { token: h.rootToken } }),
    ).toMatchObject({ message: 'lease does not expire' });
    expect(
      await h.fail(tokenContracts.renew, {
        mount: tokenMount,
        path: 'renew',
        body: { token: 'hvs.unknown' },
      }),
    ).toMatchObject({ message: 'token not found' });
  });
});

describe('null fields (hvac sends null for what it leaves unset)', () => {
  it('creates, renews and looks up with null as "not set"', async () => {
    const nulls = {
      id: null,
      policies: null,
      meta: null,
      no_parent: null,
      no_default_policy: null,
      renewable: null,
      ttl: null,
      type: null,
      explicit_max_ttl: null,
      display_name: null,
      num_uses: null,
      period: null,
      entity_alias: null,
    };
    const { token, auth } = await create(nulls);
    expect(auth).toMatchObject({ policies: ['root'], lease_duration: 0 });
    const child = await create({ ...nulls, policies: ['web'], ttl: '1h' });
    const renew = { mount: tokenMount, path: 'renew', body: { token: child.token, increment: null } };
    expect((await h.call(tokenContracts.renew, renew)).auth?.lease_duration).toBe(3600);
    const caller = await h.callerFor(child.token);
    const self = await h.call(
      tokenContracts.renewSelf,
      { mount: tokenMount, path: 'renew-self', body: { increment: null } },
      caller,
    );
    expect(self.auth?.lease_duration).toBe(3600);
    const byAccessor = await h.call(tokenContracts.renewAccessor, {
      mount: tokenMount,
      path: 'renew-accessor',
      body: { accessor: child.auth.accessor, increment: null },
    });
    expect(byAccessor.auth?.lease_duration).toBe(3600);
    expect((await lookup(token)).data).toMatchObject({ id: token, meta: null, num_uses: 0 });
  });
});

describe('revocation', () => {
  it('revokes children with the parent and broadcasts before answering', async () => {
    const revoked = await h.record(tokenRevoked);
    const parent = await create({ policies: ['web'] });
    const parentCaller = await h.callerFor(parent.token);
    const child = await create({}, parentCaller);
    const grandchild = await create({}, await h.callerFor(child.token));
    const parentRef = parentCaller.tokenRef ?? '';

    await h.call(tokenContracts.revoke, { mount: tokenMount, path: 'revoke', body: { token: parent.token } });
    for (const t of [parent, child, grandchild]) expect(await invalid(t.token)).toBe(true);
    expect(await alive(parentRef)).toBe(false);
    const all = await waitFor(() => revoked.find((r) => r.accessors.includes(parent.auth.accessor)));
    expect(all.accessors).toEqual([grandchild.auth.accessor, child.auth.accessor, parent.auth.accessor]);
    expect(all.tokenRefs).toContain(parentRef);
  });

  it('revoke-orphan leaves the children alive as orphans', async () => {
    const parent = await create({ policies: ['web'] });
    const child = await create({}, await h.callerFor(parent.token));
    await h.call(tokenContracts.revokeOrphan, {
      mount: tokenMount,
      path: 'revoke-orphan',
      body: { token: parent.token },
    });
    expect(await invalid(parent.token)).toBe(true);
    expect((await lookup(child.token)).data).toMatchObject({ orphan: true });
  });

  it('revokes self and by accessor; unknown tokens are fine', async () => {
    const a = await create();
    await h.call(
      tokenContracts.revokeSelf,
      { mount: tokenMount, path: 'revoke-self' },
      await h.callerFor(a.token),
    );
    expect(await invalid(a.token)).toBe(true);
    const b = await create();
    await h.call(tokenContracts.revokeAccessor, {
      mount: tokenMount,
      path: 'revoke-accessor',
      body: { accessor: b.auth.accessor },
    });
    expect(await invalid(b.token)).toBe(true);
    await h.call(tokenContracts.revoke, {
      mount: tokenMount,
      path: 'revoke',
      body: { token: 'hvs.never-existed' },
    });
    expect(
      await h.fail(tokenContracts.revokeAccessor, {
        mount: tokenMount,
        path: 'revoke-accessor',
        body: { accessor: 'nope' },
      }),
    ).toMatchObject({
      message: 'invalid accessor',
    });
  });
});

describe('num_uses', () => {
  it('counts every resolve, is not cacheable, and dies at zero', async () => {
    const { token, auth } = await create({ num_uses: 2 });
    expect(auth.num_uses).toBe(2);
    const first = await resolve(token);
    expect(first.cacheable).toBe(false);
    expect((await lookup(token)).data).toMatchObject({ num_uses: 1 });
    // The last use leaves 0 remaining, which must not read as "unlimited": cached by the
    // gateway, the token would keep working after its last use.
    const last = await resolve(token);
    expect(last.cacheable).toBe(false);
    expect(await invalid(token)).toBe(true);
    // Still alive for its last request's per-token state until the grace has passed.
    expect(await alive(first.tokenRef)).toBe(true);
    h.clock.now = new Date(h.clock.now.getTime() + 61_000);
    await waitFor(async () => !(await alive(first.tokenRef)));
  });

  it('counts the lookup-self request itself as a use, the last one included', async () => {
    const { token } = await create({ num_uses: 2 });
    // callerFor resolves the token as the gateway does for each request.
    const lookupSelf = async () =>
      (
        await h.call(
          tokenContracts.lookupSelf,
          { mount: tokenMount, path: 'lookup-self', operation: 'read' },
          await h.callerFor(token),
        )
      ).data;
    expect(await lookupSelf()).toMatchObject({ num_uses: 1 });
    expect(await lookupSelf()).toMatchObject({ num_uses: 0 });
    await expect(h.callerFor(token)).rejects.toMatchObject({
      code: 'invalid_token',
      message: 'permission denied',
    });
  });

  it('counts concurrent uses exactly', async () => {
    const { token } = await create({ num_uses: 5 });
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => resolve(token)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(5);
  });
});

describe('lookup of a token that does not exist', () => {
  it('is forbidden with "bad token" (403), unknown or revoked, as in Vault', async () => {
    const revoked = await create();
    await h.call(tokenContracts.revoke, {
      mount: tokenMount,
      path: 'revoke',
      body: { token: revoked.token },
    });
    for (const token of ['hvs.never-existed', revoked.token]) {
      expect(
        await h.fail(tokenContracts.lookup, { mount: tokenMount, path: 'lookup', body: { token } }),
      ).toMatchObject({ code: 'forbidden', message: 'bad token' });
    }
  });
});

describe('expiry', () => {
  it('invalidates at expiry and the sweeper revokes the token and its children', async () => {
    const parent = await create({ ttl: '30s', policies: ['web'] });
    const parentCaller = await h.callerFor(parent.token);
    const child = await create({ ttl: '1h' }, parentCaller);
    const childRef = (await h.callerFor(child.token)).tokenRef ?? '';
    h.clock.now = new Date(h.clock.now.getTime() + 31_000);
    expect(await invalid(parent.token)).toBe(true);
    await waitFor(async () => !(await alive(parentCaller.tokenRef ?? '')) && !(await alive(childRef)));
    expect(await invalid(child.token)).toBe(true);
  });
});

describe('concurrent revocation (several replicas sweeping and revoking at once)', () => {
  it('revokes every token exactly once and never fails', async () => {
    const revoked = await h.record(tokenRevoked);
    const parent = await create({ ttl: '30s', policies: ['web'] });
    const parentCaller = await h.callerFor(parent.token);
    const children = [await create({}, parentCaller), await create({}, parentCaller)];
    h.clock.now = new Date(h.clock.now.getTime() + 31_000);
    const revocation = h.app.get(TokenRevocationService);
    const sweeper = h.app.get(TokenSweeper);
    await Promise.all([
      revocation.revokeTree(parent.auth.accessor, 'revoked'),
      revocation.revokeTree(parent.auth.accessor, 'revoked'),
      sweeper.sweep(),
      revocation.revokeTree(children[0]?.auth.accessor ?? '', 'revoked'),
    ]);
    for (const t of [parent, ...children]) expect(await invalid(t.token)).toBe(true);
    const expected = [parent, ...children].map((t) => t.auth.accessor).sort();
    await waitFor(() => expected.every((a) => revoked.some((r) => r.accessors.includes(a))));
    const announced = revoked.flatMap((r) => r.accessors).filter((a) => expected.includes(a));
    expect(announced.sort()).toEqual(expected);
  });
});

describe('sealed', () => {
  it('refuses to resolve tokens while sealed', async () => {
    await h.call(sysContracts.seal, { mount: h.mount('sys/'), path: 'seal' });
    await expect(resolve(h.rootToken)).rejects.toMatchObject({ code: 'sealed' });
  });
});
