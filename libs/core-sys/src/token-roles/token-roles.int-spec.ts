import {
  coreTokenResolve,
  identityContracts,
  sysContracts,
  tokenContracts,
  type CallerContext,
  type MountInfo,
} from '@coffer/contracts';
import { startCoreSysHarness, type DevCoreSysHarness } from '../test-support/dev-harness';

jest.setTimeout(30_000);

let h: DevCoreSysHarness;
let tokenMount: MountInfo;

beforeAll(async () => {
  h = await startCoreSysHarness('token-roles');
  tokenMount = h.mount('auth/token/');
});

afterAll(async () => {
  await h?.close();
});

const roleReq = (
  name: string,
  body?: Record<string, unknown>,
  operation: 'create' | 'update' = 'create',
) => ({
  mount: tokenMount,
  operation,
  path: `roles/${name}`,
  params: { name },
  ...(body ? { body } : {}),
});
const writeRole = (
  name: string,
  body: Record<string, unknown> = {},
  operation: 'create' | 'update' = 'create',
) => h.call(tokenContracts.roleWrite, roleReq(name, body, operation));
const readRole = (name: string) => h.call(tokenContracts.roleRead, roleReq(name));
const createReq = (role: string, body: Record<string, unknown> = {}) => ({
  mount: tokenMount,
  path: `create/${role}`,
  params: { role },
  body,
});
const createWith = async (role: string, body: Record<string, unknown> = {}, caller?: CallerContext) => {
  const res = await h.call(tokenContracts.createWithRole, createReq(role, body), caller);
  if (!res.auth) throw new Error('no auth block');
  return res;
};
const lookup = (token: string) =>
  h.call(tokenContracts.lookup, { mount: tokenMount, path: 'lookup', body: { token } });
const policy = (name: string) =>
  h.call(sysContracts.policyWrite, {
    mount: h.mount('sys/'),
    path: `policies/acl/${name}`,
    params: { name },
    body: { policy: 'path "secret/*" { capabilities = ["read"] }' },
  });

describe('auth/token/roles', () => {
  it("reads a new role back with Vault's defaults and field set", async () => {
    expect(await writeRole('plain')).toMatchObject({ data: null });
    expect((await readRole('plain')).data).toEqual({
      name: 'plain',
      allowed_policies: [],
      disallowed_policies: [],
      allowed_policies_glob: [],
      disallowed_policies_glob: [],
      allowed_entity_aliases: null,
      orphan: false,
      renewable: true,
      path_suffix: '',
      token_type: 'default-service',
      token_no_default_policy: false,
      period: 0,
      token_period: 0,
      explicit_max_ttl: 0,
      token_explicit_max_ttl: 0,
    });
  });

  it('stores every field, and an update changes only what it is given', async () => {
    await writeRole('full', {
      allowed_policies: 'Web, ops,web',
      disallowed_policies: ['Admin'],
      allowed_policies_glob: 'team-*',
      disallowed_policies_glob: ['secret-*'],
      orphan: 'true',
      renewable: false,
      path_suffix: 'v01',
      allowed_entity_aliases: 'Alice,bob',
      token_type: 'service',
      token_period: '1h',
      token_explicit_max_ttl: 7200,
      token_bound_cidrs: '10.0.0.0/8',
      token_no_default_policy: true,
      token_num_uses: 3,
    });
    const full = {
      name: 'full',
      allowed_policies: ['ops', 'web'],
      disallowed_policies: ['admin'],
      allowed_policies_glob: ['team-*'],
      disallowed_policies_glob: ['secret-*'],
      allowed_entity_aliases: ['alice', 'bob'],
      orphan: true,
      renewable: false,
      path_suffix: 'v01',
      token_type: 'service',
      token_no_default_policy: true,
      period: 0,
      token_period: 3600,
      explicit_max_ttl: 0,
      token_explicit_max_ttl: 7200,
      token_bound_cidrs: ['10.0.0.0/8'],
      token_num_uses: 3,
    };
    expect((await readRole('full')).data).toEqual(full);
    await writeRole('full', { path_suffix: 'v02' }, 'update');
    expect((await readRole('full')).data).toEqual({ ...full, path_suffix: 'v02' });
  });

  it('keeps the deprecated period and explicit_max_ttl as Vault does', async () => {
    await writeRole('old', { period: '30m', explicit_max_ttl: '2h' });
    expect((await readRole('old')).data).toMatchObject({
      period: 1800,
      token_period: 1800,
      explicit_max_ttl: 7200,
      token_explicit_max_ttl: 7200,
    });
  });

  it('lists, checks existence and deletes', async () => {
    await writeRole('gone');
    const list = await h.call(tokenContracts.roleList, {
      mount: tokenMount,
      operation: 'list',
      path: 'roles',
    });
    expect(list.data?.keys).toEqual(expect.arrayContaining(['gone', 'plain']));
    expect(await h.call(tokenContracts.roleExists, roleReq('gone'))).toEqual({ exists: true });
    await h.call(tokenContracts.roleDelete, roleReq('gone'));
    expect(await h.call(tokenContracts.roleExists, roleReq('gone'))).toEqual({ exists: false });
    expect(await h.fail(tokenContracts.roleRead, roleReq('gone'))).toMatchObject({ code: 'not_found' });
    // Deleting what is not there is fine (204).
    await h.call(tokenContracts.roleDelete, roleReq('gone'));
    // and the name can be used again
    await writeRole('gone');
    expect(await h.call(tokenContracts.roleExists, roleReq('gone'))).toEqual({ exists: true });
  });

  it.each([
    [{ token_type: 'weird' }, `invalid 'token_type' value "weird"`],
    [
      { token_type: 'batch' },
      "'token_type' cannot be 'batch' when role is set to generate non-orphan tokens",
    ],
    [
      { token_type: 'batch', orphan: true },
      "'token_type' cannot be 'batch' when role is set to generate renewable tokens",
    ],
    [
      { token_type: 'batch', orphan: true, renewable: false, token_period: 60 },
      "'token_type' cannot be 'batch' when role is set to generate periodic tokens",
    ],
    [
      { token_type: 'batch', orphan: true, renewable: false, token_explicit_max_ttl: 60 },
      "'token_type' cannot be 'batch' when role is set to generate tokens with an explicit max TTL",
    ],
    [{ path_suffix: 'a/b' }, 'given role path suffix contains invalid characters; must match \\w[\\w-.]+\\w'],
    [{ path_suffix: 'a..b' }, "error registering path suffix: path cannot contain parent references ('..')"],
    [{ token_bound_cidrs: 'nope' }, 'invalid value "nope" when parsing bound cidrs'],
    [{ token_num_uses: -1 }, 'token_num_uses cannot be negative'],
    [{ token_period: 'soon' }, 'time: invalid duration "soon"'],
    [
      { orphan: 'maybe' },
      `cannot parse 'orphan' as bool: strconv.ParseBool: parsing "maybe": invalid syntax`,
    ],
  ])('refuses %j and stores nothing', async (body, message) => {
    const error = await h.fail(tokenContracts.roleWrite, roleReq('bad', body));
    expect(error.code).toBe('invalid_request');
    expect(error.message).toContain(message);
    expect(await h.call(tokenContracts.roleExists, roleReq('bad'))).toEqual({ exists: false });
  });

  it('refuses invalid role names', async () => {
    expect(await h.fail(tokenContracts.roleWrite, roleReq('-bad-', {}))).toMatchObject({
      code: 'invalid_request',
      message: 'invalid role name "-bad-"',
    });
  });

  it('accepts a valid batch role', async () => {
    await writeRole('batchy', { token_type: 'batch', orphan: true, renewable: false });
    expect((await readRole('batchy')).data).toMatchObject({ token_type: 'batch' });
  });
});

describe('auth/token/create/:role', () => {
  beforeAll(async () => {
    for (const p of ['web', 'ops', 'admin', 'team-a']) await policy(p);
  });

  it('answers unknown roles with 400 "unknown role <name>"', async () => {
    expect(await h.fail(tokenContracts.createWithRole, createReq('nope'))).toMatchObject({
      code: 'invalid_request',
      message: 'unknown role nope',
    });
  });

  it("gives the role's allowed policies (plus default) when none are asked, path with role and suffix", async () => {
    await writeRole('web-role', { allowed_policies: 'web,ops', path_suffix: 'v01' });
    const res = await createWith('web-role');
    expect(res.auth?.policies).toEqual(['default', 'ops', 'web']);
    expect(res.auth?.orphan).toBe(false);
    const data = (await lookup(res.auth?.client_token ?? '')).data;
    expect(data?.path).toBe('auth/token/create/web-role/v01');
    expect(data?.role).toBe('web-role');
    expect(data?.policies).toEqual(['default', 'ops', 'web']);
  });

  it('lets a non-root caller create tokens with policies it does not hold, within the role', async () => {
    await writeRole('escalate', { allowed_policies: 'admin' });
    const parent = await createWith('web-role', { policies: ['web'] });
    const caller = await h.callerFor(parent.auth?.client_token ?? '');
    const child = await createWith('escalate', {}, caller);
    expect(child.auth?.policies).toEqual(['admin', 'default']);
  });

  it("refuses policies outside the role's allowed set with Vault's text", async () => {
    const error = await h.fail(tokenContracts.createWithRole, createReq('web-role', { policies: ['admin'] }));
    expect(error).toMatchObject({
      code: 'invalid_request',
      message: `token policies (["admin" "default"]) must be subset of the role's allowed policies (["default" "ops" "web"])`,
    });
  });

  it('matches allowed and disallowed globs', async () => {
    await writeRole('globs', { allowed_policies_glob: 'team-*', disallowed_policies_glob: 'team-x*' });
    expect((await createWith('globs', { policies: 'team-a' })).auth?.policies).toEqual(['default', 'team-a']);
    expect(
      await h.fail(tokenContracts.createWithRole, createReq('globs', { policies: 'web' })),
    ).toMatchObject({
      message: `token policies (["default" "web"]) must be subset of the role's allowed policies (["default"]) or glob policies (["team-*"])`,
    });
    expect(
      await h.fail(tokenContracts.createWithRole, createReq('globs', { policies: 'team-xy' })),
    ).toMatchObject({ message: 'token policy "team-xy" is disallowed by this role' });
  });

  it('refuses disallowed policies, and leaves out default when it is disallowed', async () => {
    await writeRole('deny', { disallowed_policies: 'admin,default' });
    expect(
      await h.fail(tokenContracts.createWithRole, createReq('deny', { policies: 'web,admin' })),
    ).toMatchObject({
      code: 'invalid_request',
      message: 'token policy "admin" is disallowed by this role',
    });
    expect((await createWith('deny', { policies: 'web' })).auth?.policies).toEqual(['web']);
  });

  it('honours token_no_default_policy', async () => {
    await writeRole('nodef', { allowed_policies: 'web', token_no_default_policy: true });
    expect((await createWith('nodef')).auth?.policies).toEqual(['web']);
  });

  it('makes orphans without sudo, ignores no_parent, and is not renewable when the role says so', async () => {
    await writeRole('orphans', { orphan: true, renewable: false, allowed_policies: 'web' });
    const parent = await createWith('web-role', { policies: ['web'] });
    const caller = await h.callerFor(parent.auth?.client_token ?? '');
    const res = await createWith('orphans', { ttl: '1h' }, caller);
    expect(res.auth).toMatchObject({ orphan: true, renewable: false });
    const data = (await lookup(res.auth?.client_token ?? '')).data;
    expect(data).toMatchObject({ orphan: true, renewable: false });
    await writeRole('children', { allowed_policies: 'web' });
    expect((await createWith('children', { no_parent: true })).auth?.orphan).toBe(false);
  });

  it("uses the role's period and explicit max TTL, the lesser one with a warning when both are given", async () => {
    await writeRole('periodic', { token_period: '1h', allowed_policies: 'web' });
    const periodic = await createWith('periodic');
    expect(periodic.auth?.lease_duration).toBe(3600);
    expect((await lookup(periodic.auth?.client_token ?? '')).data).toMatchObject({ period: 3600 });
    const both = await createWith('periodic', { period: '30m' });
    expect(both.auth?.lease_duration).toBe(1800);
    expect(both.warnings).toContain(
      'Period specified both during creation call and in role; using the lesser value of 1800 seconds',
    );
    await writeRole('capped', { token_explicit_max_ttl: '10m', allowed_policies: 'web' });
    const capped = await createWith('capped', { ttl: '1h' });
    expect(capped.auth?.lease_duration).toBe(600);
    expect((await lookup(capped.auth?.client_token ?? '')).data).toMatchObject({ explicit_max_ttl: 600 });
  });

  it("applies the role's num_uses", async () => {
    await writeRole('limited', { token_num_uses: 2, allowed_policies: 'web' });
    expect((await createWith('limited')).auth?.num_uses).toBe(2);
    expect((await createWith('limited', { num_uses: 1 })).auth?.num_uses).toBe(1);
  });

  it('refuses bad input with nothing created', async () => {
    const before = (await h.call(tokenContracts.listAccessors, { mount: tokenMount, path: 'accessors' })).data
      ?.keys.length;
    const cases: [string, Record<string, unknown>, string][] = [
      ['web-role', { type: 'weird' }, "invalid 'token_type' value"],
      ['web-role', { type: 'batch', num_uses: 2 }, 'batch tokens cannot have "num_uses" set'],
      ['web-role', { num_uses: -1 }, 'number of uses cannot be negative'],
      ['web-role', { ttl: '-1s' }, 'ttl must be positive'],
      ['web-role', { entity_alias: 'alice' }, "invalid 'entity_alias' value"],
      ['web-role', { policies: ['root'] }, 'must be subset of the role'],
    ];
    for (const [role, body, message] of cases) {
      const error = await h.fail(tokenContracts.createWithRole, createReq(role, body));
      expect(error.code).toBe('invalid_request');
      expect(error.message).toContain(message);
    }
    const after = (await h.call(tokenContracts.listAccessors, { mount: tokenMount, path: 'accessors' })).data
      ?.keys.length;
    expect(after).toBe(before);
  });

  it('gives the token the entity of an allowed entity_alias, created on first use on the token mount', async () => {
    await writeRole('aliased', { allowed_entity_aliases: 'svc-*,bob' });
    const first = await createWith('aliased', { entity_alias: 'svc-web' });
    const entityId = first.auth?.entity_id ?? '';
    expect(entityId).not.toBe('');
    expect((await lookup(first.auth?.client_token ?? '')).data?.entity_id).toBe(entityId);
    const idm = h.mount('identity/');
    const entity = await h.call(identityContracts.entityByIdRead, {
      mount: idm,
      operation: 'read',
      path: `entity/id/${entityId}`,
      params: { id: entityId },
    });
    expect(entity.data?.aliases).toEqual([
      expect.objectContaining({ name: 'svc-web', mount_accessor: tokenMount.accessor }),
    ]);
    // The same alias again: the same entity, nothing new created.
    expect((await createWith('aliased', { entity_alias: 'svc-web' })).auth?.entity_id).toBe(entityId);
    expect((await createWith('aliased', { entity_alias: 'bob' })).auth?.entity_id).not.toBe(entityId);
    // Outside the globs: Vault's refusal, no alias made.
    expect(
      await h.fail(tokenContracts.createWithRole, createReq('aliased', { entity_alias: 'alice' })),
    ).toMatchObject({ code: 'invalid_request', message: "invalid 'entity_alias' value" });
    // A disabled entity's alias is refused.
    await h.call(identityContracts.entityByIdWrite, {
      mount: idm,
      path: `entity/id/${entityId}`,
      params: { id: entityId },
      body: { disabled: true },
    });
    expect(
      await h.fail(tokenContracts.createWithRole, createReq('aliased', { entity_alias: 'svc-web' })),
    ).toMatchObject({ code: 'permission_denied', message: 'entity is disabled' });
  });

  it("binds the token to the role's token_bound_cidrs: lookup shows them, resolve carries them", async () => {
    await writeRole('bound', { token_bound_cidrs: '10.0.0.0/8,192.168.1.7' });
    const token = (await createWith('bound')).auth?.client_token ?? '';
    expect((await lookup(token)).data?.bound_cidrs).toEqual(['10.0.0.0/8', '192.168.1.7']);
    expect((await h.client.request(coreTokenResolve, { token })).boundCidrs).toEqual([
      '10.0.0.0/8',
      '192.168.1.7',
    ]);
    // A batch token carries them sealed in itself.
    await writeRole('bound-batch', {
      token_bound_cidrs: '10.0.0.0/8',
      token_type: 'batch',
      orphan: true,
      renewable: false,
      allowed_policies: 'web',
    });
    const batch = (await createWith('bound-batch')).auth?.client_token ?? '';
    expect((await h.client.request(coreTokenResolve, { token: batch })).boundCidrs).toEqual(['10.0.0.0/8']);
    const free = (await createWith('web-role')).auth?.client_token ?? '';
    expect((await lookup(free)).data).not.toHaveProperty('bound_cidrs');
    expect(await h.client.request(coreTokenResolve, { token: free })).not.toHaveProperty('boundCidrs');
  });

  it('needs sudo for a periodic request by a non-root caller', async () => {
    await writeRole('plain-web', { allowed_policies: 'web' });
    const parent = await createWith('web-role', { policies: ['web'] });
    const caller = await h.callerFor(parent.auth?.client_token ?? '');
    expect(
      await h.fail(tokenContracts.createWithRole, createReq('plain-web', { period: '1h' }), caller),
    ).toMatchObject({ message: 'root or sudo privileges required to create periodic token' });
  });
});

describe('auth/token/tidy', () => {
  it('answers 202 with the warning and revokes expired tokens', async () => {
    await writeRole('short', { allowed_policies: 'web' });
    const res = await createWith('short', { ttl: '1m' });
    const accessor = res.auth?.accessor ?? '';
    h.clock.now = new Date(h.clock.now.getTime() + 120_000);
    const tidy = await h.call(tokenContracts.tidy, { mount: tokenMount, path: 'tidy' });
    expect(tidy).toMatchObject({
      status: 202,
      warnings: [
        "Tidy operation successfully started. Any information from the operation will be printed to Vault's server logs.",
      ],
    });
    const keys = (await h.call(tokenContracts.listAccessors, { mount: tokenMount, path: 'accessors' })).data
      ?.keys;
    expect(keys).not.toContain(accessor);
  });
});
