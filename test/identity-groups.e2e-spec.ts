import { startTarget, START_TIMEOUT_MS, TARGETS, uniq, type ApiClient, type Target } from './support';

jest.setTimeout(60_000);

/** Identity groups over HTTP: shapes, nesting, cycles, policies for tokens, lookup, merge, batch-delete. */
describe.each(TARGETS)('%s: identity groups', (kind) => {
  let target: Target;
  let root: ApiClient;
  let accessor: string;
  const password = 'correct horse battery staple';
  const groupPolicy = uniq('group-read');
  const teamPolicy = uniq('team-read');

  beforeAll(async () => {
    target = await startTarget(kind, { label: 'groups' });
    root = target.root;
    await root.put('secret/data/groups/doc', { data: { v: 'for the group' } });
    await root.put(`sys/policies/acl/${groupPolicy}`, {
      policy: 'path "secret/data/groups/*" { capabilities = ["read"] }',
    });
    expect((await root.post('sys/auth/userpass', { type: 'userpass' })).status).toBe(204);
    accessor = (await root.get('sys/auth')).body.data['userpass/'].accessor;
  }, START_TIMEOUT_MS);
  afterAll(() => target?.stop());

  /** A userpass user logged in: its token client and its entity id. */
  async function user(policies: string[] = []): Promise<{ t: ApiClient; entityId: string; name: string }> {
    const name = uniq('u');
    await root.put(`auth/userpass/users/${name}`, { password, token_policies: policies });
    const auth = (await target.anon.post(`auth/userpass/login/${name}`, { password })).body.auth;
    return { t: target.anon.withToken(auth.client_token), entityId: auth.entity_id, name };
  }
  const createGroup = async (body: Record<string, unknown>): Promise<string> => {
    const res = await root.post('identity/group', body);
    expect(res.status).toBe(200);
    return res.body.data.id as string;
  };

  it('creates (200 {id, name}), updates (204), reads, lists and deletes groups', async () => {
    const name = uniq('grp');
    const created = await root.post('identity/group', { name, policies: 'a,b', metadata: { k: 'v' } });
    expect(created.status).toBe(200);
    expect(created.body.data).toEqual({ id: expect.any(String), name });
    const id = created.body.data.id as string;
    expect((await root.post(`identity/group/id/${id}`, { policies: ['a'] })).status).toBe(204);
    const read = await root.get(`identity/group/id/${id}`);
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual({
      id,
      name,
      type: 'internal',
      policies: ['a'],
      metadata: { k: 'v' },
      member_entity_ids: [],
      member_group_ids: null,
      parent_group_ids: null,
      modify_index: 2,
      namespace_id: 'root',
      alias: {},
      creation_time: expect.any(String),
      last_update_time: expect.any(String),
    });
    expect((await root.get(`identity/group/name/${name}`)).body.data.id).toBe(id);
    const byId = await root.list('identity/group/id');
    expect(byId.body.data.keys).toContain(id);
    expect(byId.body.data.key_info[id]).toEqual({ name, num_member_entities: 0, num_parent_groups: 0 });
    expect((await root.list('identity/group/name')).body.data.keys).toContain(name);
    expect((await root.delete(`identity/group/name/${name}`)).status).toBe(204);
    expect((await root.get(`identity/group/id/${id}`)).status).toBe(404);
  });

  it('nests groups and refuses a cycle with Vault’s text, changing nothing', async () => {
    const a = await createGroup({ name: uniq('a') });
    const b = await createGroup({ name: uniq('b'), member_group_ids: [a] });
    const c = await createGroup({ name: uniq('c'), member_group_ids: [b] });
    expect((await root.get(`identity/group/id/${a}`)).body.data.parent_group_ids).toEqual([b]);
    const refused = await root.post(`identity/group/id/${a}`, { member_group_ids: [c] });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([`cyclic relationship detected for member group ID "${c}"`]);
    expect((await root.get(`identity/group/id/${a}`)).body.data.member_group_ids).toBeNull();
    const bad = await root.post('identity/group', { name: uniq('x'), type: 'weird' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual(['invalid group type "weird"']);
  });

  it('gives a user the policy of a group its entity is nested in, and takes it away at once', async () => {
    const { t, entityId } = await user();
    expect((await t.get('secret/data/groups/doc')).status).toBe(403);
    const inner = await createGroup({ name: uniq('inner'), member_entity_ids: [entityId] });
    const outer = await createGroup({
      name: uniq('outer'),
      policies: [groupPolicy],
      member_group_ids: [inner],
    });
    expect((await t.get('secret/data/groups/doc')).status).toBe(200);
    expect((await t.get('auth/token/lookup-self')).body.data.identity_policies).toEqual([groupPolicy]);
    const entity = (await root.get(`identity/entity/id/${entityId}`)).body.data;
    expect(entity).toMatchObject({ direct_group_ids: [inner], inherited_group_ids: [outer] });

    expect((await root.post(`identity/group/id/${inner}`, { member_entity_ids: [] })).status).toBe(204);
    expect((await t.get('secret/data/groups/doc')).status).toBe(403);
    expect((await t.get('auth/token/lookup-self')).body.data.identity_policies).toBeUndefined();
  });

  it('renders group templates in ACL policies from the entity’s groups', async () => {
    const teamName = uniq('team');
    await root.put(`sys/policies/acl/${teamPolicy}`, {
      policy: `path "secret/data/teams/{{identity.groups.names.${teamName}.id}}/*" { capabilities = ["read"] }`,
    });
    const { t, entityId } = await user([teamPolicy]);
    const team = await createGroup({ name: teamName });
    await root.put(`secret/data/teams/${team}/doc`, { data: { v: 1 } });
    expect((await t.get(`secret/data/teams/${team}/doc`)).status).toBe(403);
    await root.post(`identity/group/id/${team}`, { member_entity_ids: [entityId] });
    expect((await t.get(`secret/data/teams/${team}/doc`)).status).toBe(200);
  });

  it('ties an alias to an external group and looks groups and entities up', async () => {
    const ext = await createGroup({ name: uniq('ext'), type: 'external' });
    const aliasName = uniq('ldap-grp');
    const alias = await root.post('identity/group-alias', {
      name: aliasName,
      mount_accessor: accessor,
      canonical_id: ext,
    });
    expect(alias.status).toBe(200);
    expect(alias.body.data).toEqual({ id: expect.any(String), canonical_id: ext });
    expect((await root.get(`identity/group-alias/id/${alias.body.data.id}`)).body.data).toMatchObject({
      name: aliasName,
      canonical_id: ext,
      mount_accessor: accessor,
      mount_type: 'userpass',
    });
    expect((await root.list('identity/group-alias/id')).body.data.keys).toContain(alias.body.data.id);
    const found = await root.post('identity/lookup/group', {
      alias_name: aliasName,
      alias_mount_accessor: accessor,
    });
    expect(found.status).toBe(200);
    expect(found.body.data.id).toBe(ext);
    expect((await root.post('identity/lookup/group', { name: uniq('none') })).status).toBe(204);
    const conflict = await root.post('identity/lookup/entity', { id: 'x', name: 'y' });
    expect(conflict.status).toBe(400);
    expect(conflict.body.errors).toEqual([
      'query parameter conflict; please supply distinct set of query parameters',
    ]);
    const { entityId, name } = await user();
    const entity = await root.post('identity/lookup/entity', {
      alias_name: name,
      alias_mount_accessor: accessor,
    });
    expect(entity.body.data.id).toBe(entityId);
  });

  it('merges entities (tokens follow the target) and batch-deletes them', async () => {
    const from = await user();
    const to = (await root.post('identity/entity', { name: uniq('to'), policies: [groupPolicy] })).body.data
      .id;
    expect((await from.t.get('secret/data/groups/doc')).status).toBe(403);
    const merged = await root.post('identity/entity/merge', {
      from_entity_ids: [from.entityId],
      to_entity_id: to,
    });
    expect(merged.status).toBe(204);
    expect((await from.t.get('secret/data/groups/doc')).status).toBe(200);
    const target = (await root.get(`identity/entity/id/${to}`)).body.data;
    expect(target.merged_entity_ids).toEqual([from.entityId]);
    expect(target.aliases).toHaveLength(1);
    expect((await root.get(`identity/entity/id/${from.entityId}`)).status).toBe(404);

    const grp = await createGroup({ name: uniq('bd'), member_entity_ids: [to] });
    expect((await root.post('identity/entity/batch-delete', { entity_ids: [to] })).status).toBe(204);
    expect((await root.get(`identity/entity/id/${to}`)).status).toBe(404);
    expect((await root.get(`identity/group/id/${grp}`)).body.data.member_entity_ids).toEqual([]);
    expect((await from.t.get('secret/data/groups/doc')).status).toBe(403);
  });
});
