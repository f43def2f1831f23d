import {
  coreEntityFacts,
  coreTokenResolve,
  identityContracts,
  identityGroupContracts as g,
  identityLookupContracts as l,
  invalidation,
  userpassContracts,
  type CallerContext,
  type MountInfo,
} from '@coffer/contracts';
import { waitFor } from '@coffer/testing';
import { sql } from 'kysely';
import { startCoreSysHarness, type DevCoreSysHarness } from '../test-support/dev-harness';

jest.setTimeout(30_000);

let h: DevCoreSysHarness;
let idm: MountInfo;
let up: MountInfo;

beforeAll(async () => {
  h = await startCoreSysHarness('groups');
  idm = h.mount('identity/');
  up = await h.enableAuth('userpass', 'userpass');
});

afterAll(async () => {
  await h?.close();
});

type Body = Record<string, unknown>;
const data = <T = Record<string, unknown>>(res: { data?: unknown }) => res.data as T;

const entity = async (name: string, body: Body = {}) =>
  data<{ id: string }>(
    await h.call(identityContracts.entityWrite, { mount: idm, path: 'entity', body: { name, ...body } }),
  ).id;
const writeGroup = (body: Body) => h.call(g.groupWrite, { mount: idm, path: 'group', body });
const updateGroup = (id: string, body: Body) =>
  h.call(g.groupByIdWrite, { mount: idm, path: `group/id/${id}`, params: { id }, body });
const failGroup = (id: string, body: Body) =>
  h.fail(g.groupByIdWrite, { mount: idm, path: `group/id/${id}`, params: { id }, body });
const readGroup = (id: string) =>
  h.call(g.groupByIdRead, { mount: idm, operation: 'read', path: `group/id/${id}`, params: { id } });
const readEntity = (id: string) =>
  h.call(identityContracts.entityByIdRead, {
    mount: idm,
    operation: 'read',
    path: `entity/id/${id}`,
    params: { id },
  });
const group = async (name: string, body: Body = {}) =>
  data<{ id: string }>(await writeGroup({ name, ...body })).id;

const anon: CallerContext = {
  requestId: 'r',
  namespace: '',
  clientAddress: '127.0.0.1',
  policies: [],
  root: false,
  sudo: false,
};
async function userToken(name: string): Promise<{ token: string; entityId: string }> {
  await h.call(userpassContracts.userWrite, {
    mount: up,
    operation: 'create',
    path: `users/${name}`,
    params: { username: name },
    body: { password: 'pw' },
  });
  const res = await h.call(
    userpassContracts.login,
    { mount: up, path: `login/${name}`, params: { username: name }, body: { password: 'pw' } },
    anon,
  );
  const auth = res.auth as { client_token: string; entity_id: string };
  return { token: auth.client_token, entityId: auth.entity_id };
}

describe('groups', () => {
  it('creates (200 {id, name}), updates (204) and reads with Vault’s fields', async () => {
    const e1 = await entity('g-alice');
    const created = await writeGroup({
      name: 'devs',
      policies: 'dev, ops',
      metadata: { team: 'x' },
      member_entity_ids: [e1],
    });
    const { id } = data<{ id: string }>(created);
    expect(created.data).toEqual({ id, name: 'devs' });
    expect(await writeGroup({ name: 'devs', policies: ['dev'] })).toMatchObject({ data: null });
    expect(data(await readGroup(id))).toEqual({
      id,
      name: 'devs',
      type: 'internal',
      policies: ['dev'],
      metadata: { team: 'x' },
      member_entity_ids: [e1],
      member_group_ids: null,
      parent_group_ids: null,
      modify_index: 2,
      namespace_id: 'root',
      alias: {},
      creation_time: expect.any(String),
      last_update_time: expect.any(String),
    });
    const byName = await h.call(g.groupByNameRead, {
      mount: idm,
      operation: 'read',
      path: 'group/name/DEVS',
      params: { name: 'DEVS' },
    });
    expect(data<{ id: string }>(byName).id).toBe(id);
    const list = data<{ keys: string[]; key_info: Record<string, unknown> }>(
      await h.call(g.groupByNameList, { mount: idm, operation: 'list', path: 'group/name' }),
    );
    expect(list.keys).toContain('devs');
    expect(list.key_info[id]).toEqual({ name: 'devs', num_member_entities: 1, num_parent_groups: 0 });
    expect(data(await readEntity(e1))).toMatchObject({
      direct_group_ids: [id],
      inherited_group_ids: [],
      group_ids: [id],
    });
  });

  it('nests groups, shows parents and refuses cycles with Vault’s text', async () => {
    const leaf = await group('leaf');
    const mid = await group('mid', { member_group_ids: [leaf] });
    const top = await group('top', { member_group_ids: mid });
    expect(data(await readGroup(leaf))).toMatchObject({ parent_group_ids: [mid] });
    expect(data(await readGroup(top))).toMatchObject({ member_group_ids: [mid] });
    expect(await failGroup(leaf, { member_group_ids: [top] })).toEqual({
      code: 'invalid_request',
      message: `cyclic relationship detected for member group ID "${top}"`,
    });
    expect(await failGroup(leaf, { member_group_ids: [leaf] })).toMatchObject({
      message: `member group ID "${leaf}" is same as the ID of the group`,
    });
    expect(await failGroup(leaf, { member_entity_ids: ['nope'] })).toMatchObject({
      message: 'invalid entity ID "nope"',
    });
    expect(data(await readGroup(leaf))).toMatchObject({ member_group_ids: null, modify_index: 1 });
  });

  it('gives tokens the policies of their entity’s groups, direct and inherited, and drops them at once', async () => {
    const { token, entityId } = await userToken('nested-user');
    const inner = await group('inner', { policies: ['inner-p'], member_entity_ids: [entityId] });
    const outer = await group('outer', { policies: ['outer-p'], member_group_ids: [inner] });
    expect((await h.client.request(coreTokenResolve, { token })).identityPolicies).toEqual([
      'inner-p',
      'outer-p',
    ]);
    expect(await h.client.request(coreEntityFacts, { entityId })).toMatchObject({
      groups: [
        ...[
          { id: inner, name: 'inner' },
          { id: outer, name: 'outer' },
        ].sort((a, b) => a.id.localeCompare(b.id)),
      ],
    });

    expect(data(await readEntity(entityId))).toMatchObject({
      direct_group_ids: [inner],
      inherited_group_ids: [outer],
      group_ids: [inner, outer],
    });

    const invalidations = await h.record(invalidation);
    await updateGroup(inner, { member_entity_ids: [] });
    expect((await h.client.request(coreTokenResolve, { token })).identityPolicies).toEqual([]);
    await waitFor(() => invalidations.some((i) => i.kind === 'token' && i.keys.length === 0));
    expect(await h.client.request(coreEntityFacts, { entityId })).toMatchObject({ groups: [] });
  });

  it('deletes by id and by name; a deleted group leaves its parents', async () => {
    const child = await group('del-child');
    const parent = await group('del-parent', { member_group_ids: [child] });
    await h.call(g.groupByNameDelete, {
      mount: idm,
      operation: 'delete',
      path: 'group/name/del-child',
      params: { name: 'del-child' },
    });
    expect(data(await readGroup(parent))).toMatchObject({ member_group_ids: null });
    await h.call(g.groupByIdDelete, {
      mount: idm,
      operation: 'delete',
      path: `group/id/${parent}`,
      params: { id: parent },
    });
    expect(
      await h.fail(g.groupByIdRead, {
        mount: idm,
        operation: 'read',
        path: `group/id/${parent}`,
        params: { id: parent },
      }),
    ).toMatchObject({
      code: 'not_found',
    });
  });
  it('keeps the group-graph log behind the barrier', async () => {
    const marker = 'group-policy-marker-7f3a';
    await group('sealed-grp', { policies: [marker], metadata: { note: marker } });
    const log = await sql<{ stream: string; t: string }>`
      select stream, e::text as t from core_sys.event_log e where stream like 'group-graph/%'`.execute(
      h.database.db,
    );
    expect(log.rows.length).toBeGreaterThan(0);
    expect(log.rows.map((r) => r.t).join('\n')).not.toContain(marker);
  });
});

describe('group aliases', () => {
  it('ties one alias to an external group and finds the group by it', async () => {
    const ext = await group('ext', { type: 'external', policies: ['ext-p'] });
    const res = await h.call(g.groupAliasWrite, {
      mount: idm,
      path: 'group-alias',
      body: { name: 'ldap-devs', mount_accessor: up.accessor, canonical_id: ext },
    });
    const alias = data<{ id: string; canonical_id: string }>(res);
    expect(alias.canonical_id).toBe(ext);
    expect(data(await readGroup(ext))).toMatchObject({
      alias: { id: alias.id, name: 'ldap-devs', mount_accessor: up.accessor, mount_type: 'userpass' },
    });
    const read = await h.call(g.groupAliasByIdRead, {
      mount: idm,
      operation: 'read',
      path: `group-alias/id/${alias.id}`,
      params: { id: alias.id },
    });
    expect(read.data).toMatchObject({
      id: alias.id,
      canonical_id: ext,
      name: 'ldap-devs',
      mount_path: 'auth/userpass/',
    });
    const found = await h.call(l.lookupGroup, {
      mount: idm,
      path: 'lookup/group',
      body: { alias_name: 'ldap-devs', alias_mount_accessor: up.accessor },
    });
    expect(data<{ id: string }>(found).id).toBe(ext);
    expect(
      await h.fail(g.groupAliasWrite, {
        mount: idm,
        path: 'group-alias',
        body: { name: 'x', mount_accessor: 'auth_nope' },
      }),
    ).toMatchObject({ message: 'invalid mount accessor "auth_nope"' });
    expect(
      await h.fail(g.groupWrite, { mount: idm, path: 'group', body: { id: ext, member_entity_ids: [] } }),
    ).toMatchObject({ message: "member entities can't be set manually for external groups" });
    await h.call(g.groupAliasByIdDelete, {
      mount: idm,
      operation: 'delete',
      path: `group-alias/id/${alias.id}`,
      params: { id: alias.id },
    });
    expect(data(await readGroup(ext))).toMatchObject({ alias: {} });
  });
});

describe('lookup, merge and batch-delete', () => {
  it('looks entities up, refusing bad parameter combinations with Vault’s texts', async () => {
    const id = await entity('look-me');
    const lookup = (body: Body) => h.call(l.lookupEntity, { mount: idm, path: 'lookup/entity', body });
    const failLookup = (body: Body) => h.fail(l.lookupEntity, { mount: idm, path: 'lookup/entity', body });
    expect(data<{ id: string }>(await lookup({ name: 'LOOK-ME' })).id).toBe(id);
    expect(data<{ name: string }>(await lookup({ id })).name).toBe('look-me');
    expect(await lookup({ name: 'nobody' })).toMatchObject({ data: null });
    expect(await failLookup({})).toMatchObject({ message: 'query parameter not supplied' });
    expect(await failLookup({ id, name: 'x' })).toMatchObject({
      message: 'query parameter conflict; please supply distinct set of query parameters',
    });
    expect(await failLookup({ alias_name: 'x' })).toMatchObject({
      message: "both 'alias_name' and 'alias_mount_accessor' needs to be set",
    });
  });

  it('merges entities: aliases, groups and tokens follow the target', async () => {
    const from = await userToken('merge-from');
    const to = await entity('merge-to', { policies: ['to-p'] });
    const grp = await group('merge-grp', { policies: ['grp-p'], member_entity_ids: [from.entityId] });
    await h.call(l.entityMerge, {
      mount: idm,
      path: 'entity/merge',
      body: { from_entity_ids: [from.entityId], to_entity_id: to },
    });
    const target = data<{
      aliases: { name: string; merged_from_canonical_ids: string[] }[];
      merged_entity_ids: string[];
    }>(await readEntity(to));
    expect(target.merged_entity_ids).toEqual([from.entityId]);
    expect(target.aliases).toMatchObject([
      { name: 'merge-from', merged_from_canonical_ids: [from.entityId] },
    ]);
    expect(data(await readGroup(grp))).toMatchObject({ member_entity_ids: [to] });
    expect(
      await h.fail(identityContracts.entityByIdRead, {
        mount: idm,
        operation: 'read',
        path: `entity/id/${from.entityId}`,
        params: { id: from.entityId },
      }),
    ).toMatchObject({ code: 'not_found' });
    expect((await h.client.request(coreTokenResolve, { token: from.token })).identityPolicies).toEqual([
      'grp-p',
      'to-p',
    ]);
    expect(
      await h.fail(l.entityMerge, {
        mount: idm,
        path: 'entity/merge',
        body: { from_entity_ids: ['x'], to_entity_id: 'nope' },
      }),
    ).toMatchObject({ message: 'entity id to merge to is invalid' });
  });

  it('batch-deletes entities, which leave their groups', async () => {
    const a = await entity('batch-a');
    const b = await entity('batch-b');
    const grp = await group('batch-grp', { member_entity_ids: [a, b] });
    await h.call(l.entityBatchDelete, {
      mount: idm,
      path: 'entity/batch-delete',
      body: { entity_ids: [a, b, 'unknown'] },
    });
    expect(data(await readGroup(grp))).toMatchObject({ member_entity_ids: [] });
    expect(
      await h.fail(l.entityBatchDelete, {
        mount: idm,
        path: 'entity/batch-delete',
        body: { entity_ids: [] },
      }),
    ).toMatchObject({ message: 'missing entity ids to delete' });
  });
});
