import { waitFor } from '@coffer/testing';
import { startTarget, START_TIMEOUT_MS, TARGETS, uniq, type ApiClient, type Target } from './support';

jest.setTimeout(90_000);

/**
 * Tokens and identity across namespaces over HTTP: a namespace's tokens and accessors end in its
 * id and work there and above only; a group holds entities of any namespace, and its policies
 * reach a member's tokens in the group's namespace and below.
 */
describe.each(TARGETS)('%s: tokens and groups across namespaces', (kind) => {
  let target: Target;
  let root: ApiClient;
  const top = uniq('top');
  const kid = `${top}/kid`;
  const side = uniq('side');
  const ids: Record<string, string> = {};
  const kvV2 = { type: 'kv', options: { version: '2' } };

  beforeAll(async () => {
    target = await startTarget(kind, { label: 'ns-identity', readyTimeoutMs: 240_000 });
    root = target.root;
    for (const path of [top, kid, side]) {
      const made = await root.post(`sys/namespaces/${path}`, {});
      expect(made.status).toBe(200);
      ids[path] = made.body.data.id as string;
    }
    expect((await root.post(`${kid}/sys/mounts/secret`, kvV2)).status).toBe(204);
    expect((await root.put(`${kid}/secret/data/x`, { data: { where: 'kid' } })).status).toBe(200);
  }, 2 * START_TIMEOUT_MS);
  afterAll(() => target?.stop());

  it('gives tokens and accessors of a namespace its id as suffix; they work there and above only', async () => {
    const created = await root.post(`${top}/auth/token/create`, { policies: ['default'] });
    expect(created.status).toBe(200);
    const token = created.body.auth.client_token as string;
    const accessor = created.body.auth.accessor as string;
    expect(token).toMatch(new RegExp(`^hvs\\.[A-Za-z0-9]+\\.${ids[top]}$`));
    expect(accessor).toMatch(new RegExp(`^[A-Za-z0-9]+\\.${ids[top]}$`));
    const rootCreated = await root.post('auth/token/create', { policies: ['default'] });
    expect(rootCreated.body.auth.client_token).toMatch(/^hvs\.[A-Za-z0-9]+$/);

    const client = target.anon.withToken(token);
    expect((await client.get(`${top}/auth/token/lookup-self`)).body.data.accessor).toBe(accessor);
    // still never above or beside its namespace
    expect((await client.get('auth/token/lookup-self')).status).toBe(403);
    expect((await client.get(`${side}/auth/token/lookup-self`)).status).toBe(403);

    expect((await root.post(`${top}/auth/token/lookup-accessor`, { accessor })).status).toBe(200);
    expect((await root.post('auth/token/lookup-accessor', { accessor })).status).toBe(200);
    expect((await root.post(`${side}/auth/token/lookup-accessor`, { accessor })).status).toBe(400);
    expect((await root.post(`${kid}/auth/token/lookup-accessor`, { accessor })).status).toBe(400);
    expect((await root.post(`${side}/auth/token/lookup`, { token })).status).toBe(403);
    const renewed = await root.post(`${top}/auth/token/renew`, { token });
    expect(renewed.status).toBe(200);
    expect(renewed.body.auth.accessor).toBe(accessor);
    expect((await root.post(`${side}/auth/token/revoke-accessor`, { accessor })).status).toBe(400);
    expect((await root.post(`${top}/auth/token/revoke-accessor`, { accessor })).status).toBe(204);
    expect((await client.get(`${top}/auth/token/lookup-self`)).status).toBe(403);
  });

  it("applies a parent namespace group's policies to a child namespace entity's token", async () => {
    expect(
      (
        await root.put(`${top}/sys/policies/acl/team`, {
          policy: 'path "kid/secret/data/*" { capabilities = ["read"] }',
        })
      ).status,
    ).toBe(204);
    expect((await root.post(`${kid}/sys/auth/userpass`, { type: 'userpass' })).status).toBe(204);
    await root.post(`${kid}/auth/userpass/users/ann`, { password: 'pw-ann', policies: 'default' });
    const login = await target.anon.post(`${kid}/auth/userpass/login/ann`, { password: 'pw-ann' });
    expect(login.status).toBe(200);
    expect(login.body.auth.client_token).toMatch(new RegExp(`\\.${ids[kid]}$`));
    const entityId = login.body.auth.entity_id as string;
    const ann = target.anon.withToken(login.body.auth.client_token);
    expect((await ann.get(`${kid}/secret/data/x`)).status).toBe(403);

    // a group beside the entity's namespace may hold it, but gives it nothing
    const beside = await root.post(`${side}/identity/group`, {
      name: 'team',
      policies: ['team'],
      member_entity_ids: [entityId],
    });
    expect(beside.status).toBe(200);
    const unknown = await root.post(`${top}/identity/group`, { member_entity_ids: ['no-such-entity'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual(['invalid entity ID "no-such-entity"']);

    const group = await root.post(`${top}/identity/group`, {
      name: 'team',
      policies: ['team'],
      member_entity_ids: [entityId],
    });
    expect(group.status).toBe(200);
    const groupId = group.body.data.id as string;
    expect((await root.get(`${top}/identity/group/id/${groupId}`)).body.data.member_entity_ids).toEqual([
      entityId,
    ]);
    // the gateways drop their cached view of the token on core-sys's broadcast
    await waitFor(async () => (await ann.get(`${kid}/secret/data/x`)).status === 200, {
      message: 'group policy applies',
    });
    expect((await ann.get(`${kid}/secret/data/x`)).body.data.data).toEqual({ where: 'kid' });
    const self = await ann.get(`${kid}/auth/token/lookup-self`);
    expect(self.body.data.external_namespace_policies).toEqual({ [ids[top]!]: ['team'] });
    const caps = await ann.post(`${kid}/sys/capabilities-self`, { paths: ['secret/data/x'] });
    expect(caps.body.data['secret/data/x']).toEqual(['read']);

    // taken out of the group, the token loses what the group gave
    expect((await root.post(`${top}/identity/group/id/${groupId}`, { member_entity_ids: [] })).status).toBe(
      204,
    );
    await waitFor(async () => (await ann.get(`${kid}/secret/data/x`)).status === 403, {
      message: 'group policy withdrawn',
    });
  });
});
