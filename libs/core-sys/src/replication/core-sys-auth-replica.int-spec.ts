import {
  approleContracts,
  coreMountTable,
  coreTokenResolve,
  coreWrapResponse,
  identityContracts,
  passwordPolicyContracts,
  sysContracts,
  tokenContracts,
  userpassContracts,
  wrappingContracts,
  type CallerContext,
  type Contract,
  type MountInfo,
} from '@coffer/contracts';
import { replicaApplyContract } from '@coffer/contracts/replication';
import { CORE_SYS_SCHEMA } from '../migrations';
import { startReplicaPair, type coreSysShipper, type ReplicaPair } from '../test-support/core-sys-shipper';
import { CoreSysHarness, ROOT_CALLER } from '../test-support/core-sys-harness';

/**
 * The primary's identity, auth backends' data, token roles and password policies replayed on a
 * secondary (both modes), its tokens and leases on a DR secondary only, and the secondary's own
 * writes to replicated rows appending to its own log (as a promoted DR secondary does).
 */
describe("core-sys replica: the primary's users, identity and tokens on a secondary (NATS + Postgres)", () => {
  let primary: CoreSysHarness;
  let secondary: CoreSysHarness;
  let primaryRoot: string;
  let secondaryRoot: string;
  let shipper: ReturnType<typeof coreSysShipper>;
  const apply = replicaApplyContract(CORE_SYS_SCHEMA);
  const ship = (mode: 'dr' | 'performance') => shipper.ship(mode);
  const caller = (): CallerContext => ({ ...ROOT_CALLER, requestId: `r-${Math.random()}` });
  const anonymous = (): CallerContext => ({ ...caller(), policies: [], root: false, sudo: false });

  let pair: ReplicaPair | undefined;
  beforeAll(async () => {
    pair = await startReplicaPair('cs_repl_auth');
    ({ primary, secondary, primaryRoot, secondaryRoot, shipper } = pair);
  }, 120_000);
  afterAll(() => pair?.close(), 30_000);

  const mount = async (h: CoreSysHarness, path: string): Promise<MountInfo> => {
    const m = (await h.client.request(coreMountTable, {})).mounts.find((e) => e.path === path);
    if (!m) throw new Error(`no mount ${path}`);
    const { uuid, accessor, type, namespace, options, config } = m;
    return { path, uuid, accessor, type, namespace, options, config };
  };
  const on = <C extends Contract>(h: CoreSysHarness, contract: C, m: MountInfo, path: string, body = {}) =>
    h.call(contract, { mount: m, path, operation: 'update', body, params: paramsOf(path) }, caller());
  const paramsOf = (path: string): Record<string, string> => {
    const [kind, name] = path.split('/');
    if (kind === 'users' || kind === 'login') return { username: name ?? '' };
    if (kind === 'role') return { role_name: name ?? '' };
    return {};
  };
  const userLogin = (h: CoreSysHarness, m: MountInfo, username: string, password: string) =>
    h.call(
      userpassContracts.login,
      { mount: m, path: `login/${username}`, params: { username }, body: { password } },
      anonymous(),
    );
  /** A sys route by its path and named params (one `name` for the token role and policy routes). */
  const sys = <C extends Contract>(
    h: CoreSysHarness,
    contract: C,
    path: string,
    name?: string,
    body?: object,
  ) =>
    h.sys(contract, {
      operation: body ? 'update' : 'read',
      path,
      ...(name !== undefined ? { params: { name } } : {}),
      ...(body ? { body: body as Record<string, unknown> } : {}),
    });
  const enableAuth = (path: string, type: string, local = false) =>
    primary.sys(sysContracts.authEnable, {
      operation: 'update',
      path: `auth/${path}`,
      params: { path },
      body: { type, local },
    });

  let shared: MountInfo;
  let secretId = '';
  let roleId = '';
  let primaryToken = '';

  it('performance: users, AppRole, identity, token roles and password policies arrive; local mounts and tokens do not', async () => {
    await enableAuth('userpass', 'userpass');
    await enableAuth('local-up', 'userpass', true);
    shared = await mount(primary, 'auth/userpass/');
    const local = await mount(primary, 'auth/local-up/');
    await on(primary, userpassContracts.userWrite, shared, 'users/alice', {
      password: 'pw-a',
      token_policies: 'reader',
    });
    await on(primary, userpassContracts.userWrite, local, 'users/bob', { password: 'pw-b' });
    // a login on the primary makes alice's entity there
    const first = await userLogin(primary, shared, 'alice', 'pw-a');
    primaryToken = first.auth?.client_token ?? '';
    expect(primaryToken).not.toBe('');

    await enableAuth('approle', 'approle');
    const ar = await mount(primary, 'auth/approle/');
    await primary.call(
      approleContracts.roleWrite,
      {
        mount: ar,
        path: 'role/web',
        operation: 'create',
        params: { role_name: 'web' },
        body: { token_policies: 'web' },
      },
      caller(),
    );
    roleId =
      (
        await primary.call(
          approleContracts.roleIdRead,
          { mount: ar, path: 'role/web/role-id', operation: 'read', params: { role_name: 'web' } },
          caller(),
        )
      ).data?.role_id ?? '';
    secretId =
      (
        await primary.call(
          approleContracts.secretIdCreate,
          { mount: ar, path: 'role/web/secret-id', params: { role_name: 'web' } },
          caller(),
        )
      ).data?.secret_id ?? '';
    await sys(primary, tokenContracts.roleWrite, 'auth/token/roles/ops', 'ops', { allowed_policies: 'ops' });
    const policy = 'length = 20\nrule "charset" { charset = "abcdefghij" }';
    await sys(primary, passwordPolicyContracts.write, 'policies/password/strong', 'strong', { policy });

    expect((await secondary.client.request(apply, { op: 'wipe', mode: 'performance' })).lastWal).toBe(0);
    const head = await ship('performance');
    expect(head).toEqual(await shipper.log.head());

    // alice logs in on the secondary: a token of the secondary's own, her primary's entity
    const there = await userLogin(secondary, shared, 'alice', 'pw-a');
    expect(there.auth?.policies).toContain('reader');
    expect(there.auth?.entity_id).toBe(first.auth?.entity_id);
    const resolved = await secondary.client.request(coreTokenResolve, {
      token: there.auth?.client_token ?? '',
    });
    expect(resolved.policies).toContain('reader');
    // the primary's local mount stays there, and so do its users
    expect(
      (await secondary.client.request(coreMountTable, {})).mounts.some((m) => m.path === 'auth/local-up/'),
    ).toBe(false);
    // AppRole: the secret id checks out under the primary's salt
    const approle = await secondary.call(
      approleContracts.login,
      { mount: ar, path: 'login', body: { role_id: roleId, secret_id: secretId } },
      anonymous(),
    );
    expect(approle.auth?.policies).toContain('web');
    // token roles and password policies
    const role = await sys(secondary, tokenContracts.roleRead, 'auth/token/roles/ops', 'ops');
    expect(role.data).toEqual(expect.objectContaining({ allowed_policies: ['ops'] }));
    const generated = await sys(
      secondary,
      passwordPolicyContracts.generate,
      'policies/password/strong/generate',
      'strong',
    );
    expect(generated.data?.password).toHaveLength(20);
    // tokens stay local on a performance secondary
    await expect(secondary.client.request(coreTokenResolve, { token: primaryToken })).rejects.toThrow();
    // its own root token still works
    expect((await secondary.client.request(coreTokenResolve, { token: secondaryRoot })).policies).toContain(
      'root',
    );
  });

  it("performance: an AppRole salt the secondary made before the primary's streamed gives way to the primary's", async () => {
    await enableAuth('approle-late', 'approle');
    const ar = await mount(primary, 'auth/approle-late/');
    const roleCall = <C extends Contract>(
      h: CoreSysHarness,
      contract: C,
      path: string,
      operation: 'create' | 'update' | 'read',
    ) => h.call(contract, { mount: ar, path, operation, params: { role_name: 'api' }, body: {} }, caller());
    await roleCall(primary, approleContracts.roleWrite, 'role/api', 'create');
    const apiRoleId =
      (await roleCall(primary, approleContracts.roleIdRead, 'role/api/role-id', 'read')).data?.role_id ?? '';
    await ship('performance');
    // a login on the secondary before any secret id exists: it loads (makes) a salt of its own
    await expect(
      secondary.call(
        approleContracts.login,
        { mount: ar, path: 'login', body: { role_id: apiRoleId, secret_id: 'not-issued' } },
        anonymous(),
      ),
    ).rejects.toThrow();
    // the primary's first secret id makes the primary's salt, which streams with it
    const issued =
      (await roleCall(primary, approleContracts.secretIdCreate, 'role/api/secret-id', 'update')).data
        ?.secret_id ?? '';
    await ship('performance');
    const login = await secondary.call(
      approleContracts.login,
      { mount: ar, path: 'login', body: { role_id: apiRoleId, secret_id: issued } },
      anonymous(),
    );
    expect(login.auth?.client_token).toEqual(expect.any(String));
  });

  it('DR: the primary tokens resolve; a revoke and a user update append to the secondary own log', async () => {
    // two responses the primary wrapped (one as Vault's JWT), unwrapped on the secondary below
    const wrap = (format?: 'jwt') =>
      primary.client.request(coreWrapResponse, {
        response: { data: { secret: format ?? 'plain' } },
        ttl: 300,
        creationPath: 'secret/data/app',
        ...(format ? { format } : {}),
      });
    const wrapped = [await wrap(), await wrap('jwt')];
    expect((await secondary.client.request(apply, { op: 'wipe', mode: 'dr' })).lastWal).toBe(0);
    await ship('dr');
    const resolved = await secondary.client.request(coreTokenResolve, { token: primaryToken });
    expect(resolved.policies).toContain('reader');
    expect((await secondary.client.request(coreTokenResolve, { token: primaryRoot })).policies).toContain(
      'root',
    );
    expect((await secondary.client.request(coreTokenResolve, { token: secondaryRoot })).policies).toContain(
      'root',
    );
    // the local mount's users come along on DR
    const local = await mount(secondary, 'auth/local-up/');
    expect((await userLogin(secondary, local, 'bob', 'pw-b')).auth?.client_token).toBeDefined();

    // the primary's wrapped responses unwrap there, once
    const sysMount = await mount(secondary, 'sys/');
    const unwrap = (token: string) =>
      secondary.call(
        wrappingContracts.unwrap,
        {
          mount: sysMount,
          path: 'wrapping/unwrap',
          body: { token },
          headers: { 'x-vault-token': secondaryRoot },
        },
        caller(),
      );
    for (const info of wrapped) {
      const body = (await unwrap(info.token)).body as { data: { secret: string } };
      expect(body.data.secret).toBe(info.token.startsWith('hvs.') ? 'plain' : 'jwt');
      await expect(unwrap(info.token)).rejects.toThrow();
    }

    // as a promoted cluster would: the replicated token is revoked, the replicated user changed
    await sys(secondary, tokenContracts.revoke, 'auth/token/revoke', undefined, { token: primaryToken });
    await expect(secondary.client.request(coreTokenResolve, { token: primaryToken })).rejects.toThrow();
    await on(secondary, userpassContracts.userPassword, shared, 'users/alice/password', {
      password: 'pw-new',
    });
    // userPassword's route params name the user
    expect((await userLogin(secondary, shared, 'alice', 'pw-new')).auth?.policies).toContain('reader');
    await on(secondary, userpassContracts.userPolicies, shared, 'users/alice/policies', {
      token_policies: 'writer',
    });
    expect((await userLogin(secondary, shared, 'alice', 'pw-new')).auth?.policies).toContain('writer');
    // an entity of the primary can be updated there too
    const idm = await mount(secondary, 'identity/');
    const entity = { mount: idm, path: `entity/id/${resolved.entityId}`, params: { id: resolved.entityId } };
    await secondary.call(
      identityContracts.entityByIdWrite,
      { ...entity, body: { policies: ['from-dr'] } },
      caller(),
    );
    const read = await secondary.call(
      identityContracts.entityByIdRead,
      { ...entity, operation: 'read' },
      caller(),
    );
    expect(read.data?.policies).toEqual(['from-dr']);
  });

  it('a wipe clears what was replicated and keeps what the secondary wrote itself', async () => {
    await secondary.client.request(apply, { op: 'wipe', mode: 'dr' });
    await expect(secondary.client.request(coreTokenResolve, { token: primaryRoot })).rejects.toThrow();
    expect((await secondary.client.request(coreTokenResolve, { token: secondaryRoot })).policies).toContain(
      'root',
    );
    await expect(sys(secondary, tokenContracts.roleRead, 'auth/token/roles/ops', 'ops')).rejects.toThrow();
  });
});
