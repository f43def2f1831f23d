import { coreEntityFacts, identityContracts, type MountInfo } from '@coffer/contracts';
import { startCoreSysHarness, type DevCoreSysHarness } from '../test-support/dev-harness';

jest.setTimeout(30_000);

let h: DevCoreSysHarness;
let idm: MountInfo;
let up: MountInfo;

beforeAll(async () => {
  h = await startCoreSysHarness('identity');
  idm = h.mount('identity/');
  up = await h.enableAuth('corp', 'userpass');
});

afterAll(async () => {
  await h?.close();
});

const writeEntity = (body: Record<string, unknown>) =>
  h.call(identityContracts.entityWrite, { mount: idm, path: 'entity', body });
const readById = (id: string) =>
  h.call(identityContracts.entityByIdRead, {
    mount: idm,
    operation: 'read',
    path: `entity/id/${id}`,
    params: { id },
  });
const writeAlias = (body: Record<string, unknown>) =>
  h.call(identityContracts.aliasWrite, { mount: idm, path: 'entity-alias', body });

describe('entities', () => {
  let aliceId = '';

  it('creates an entity: 200 with id, name and no aliases', async () => {
    const res = await writeEntity({ name: 'alice', metadata: { team: 'blue' }, policies: 'ops, dev' });
    expect(res.data).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), name: 'alice', aliases: null });
    aliceId = (res.data as { id: string }).id;
  });

  it('updates the entity of an existing name: 204', async () => {
    const res = await writeEntity({ name: 'alice', policies: ['ops'] });
    expect(res).toMatchObject({ data: null });
    const read = await readById(aliceId);
    expect(read.data).toMatchObject({
      id: aliceId,
      name: 'alice',
      metadata: { team: 'blue' },
      policies: ['ops'],
      disabled: false,
      namespace_id: 'root',
      aliases: [],
      group_ids: [],
      direct_group_ids: [],
      inherited_group_ids: [],
      merged_entity_ids: null,
      creation_time: expect.any(String),
      last_update_time: expect.any(String),
    });
  });

  it('reads, writes and deletes by name, case-insensitively', async () => {
    const byName = await h.call(identityContracts.entityByNameRead, {
      mount: idm,
      operation: 'read',
      path: 'entity/name/ALICE',
      params: { name: 'ALICE' },
    });
    expect((byName.data as { id: string }).id).toBe(aliceId);
    const created = await h.call(identityContracts.entityByNameWrite, {
      mount: idm,
      path: 'entity/name/bob',
      params: { name: 'bob' },
      body: { policies: ['x'] },
    });
    expect(created.data).toMatchObject({ name: 'bob' });
    await h.call(identityContracts.entityByNameDelete, {
      mount: idm,
      operation: 'delete',
      path: 'entity/name/bob',
      params: { name: 'bob' },
    });
    expect(
      await h.fail(identityContracts.entityByNameRead, {
        mount: idm,
        operation: 'read',
        path: 'entity/name/bob',
        params: { name: 'bob' },
      }),
    ).toMatchObject({
      code: 'not_found',
    });
  });

  it('generates names, refuses clashes, unknown ids and root', async () => {
    const gen = await writeEntity({});
    expect((gen.data as { name: string }).name).toMatch(/^entity_[0-9a-f]{8}$/);
    const genId = (gen.data as { id: string }).id;
    expect(
      await h.fail(identityContracts.entityByIdWrite, {
        mount: idm,
        path: `entity/id/${genId}`,
        params: { id: genId },
        body: { name: 'alice' },
      }),
    ).toMatchObject({
      message: 'entity name is already in use',
    });
    expect(
      await h.fail(identityContracts.entityWrite, { mount: idm, path: 'entity', body: { id: 'nope' } }),
    ).toMatchObject({
      message: 'entity not found from id',
    });
    expect(
      await h.fail(identityContracts.entityWrite, {
        mount: idm,
        path: 'entity',
        body: { policies: ['root'] },
      }),
    ).toMatchObject({
      message: 'policies cannot contain root',
    });
  });

  it('lists by id and by name with key_info', async () => {
    const byId = await h.call(identityContracts.entityByIdList, {
      mount: idm,
      operation: 'list',
      path: 'entity/id',
    });
    const data = byId.data as { keys: string[]; key_info: Record<string, { name: string }> };
    expect(data.keys).toContain(aliceId);
    expect(data.key_info[aliceId]).toEqual({ name: 'alice' });
    const byName = await h.call(identityContracts.entityByNameList, {
      mount: idm,
      operation: 'list',
      path: 'entity/name',
    });
    expect((byName.data as { keys: string[] }).keys).toContain('alice');
  });
});

describe('aliases', () => {
  it('creates an alias on an entity, reads it, lists it and shows it in the entity and its facts', async () => {
    const entity = await writeEntity({ name: 'carol' });
    const carolId = (entity.data as { id: string }).id;
    const res = await writeAlias({
      name: 'carol',
      canonical_id: carolId,
      mount_accessor: up.accessor,
      custom_metadata: { k: 'v' },
    });
    expect(res.data).toEqual({ id: expect.any(String), canonical_id: carolId });
    const aliasId = (res.data as { id: string }).id;

    const read = await h.call(identityContracts.aliasByIdRead, {
      mount: idm,
      operation: 'read',
      path: `entity-alias/id/${aliasId}`,
      params: { id: aliasId },
    });
    expect(read.data).toMatchObject({
      id: aliasId,
      canonical_id: carolId,
      mount_accessor: up.accessor,
      mount_type: 'userpass',
      mount_path: 'auth/corp/',
      name: 'carol',
      custom_metadata: { k: 'v' },
      local: false,
      namespace_id: 'root',
    });
    const list = await h.call(identityContracts.aliasByIdList, {
      mount: idm,
      operation: 'list',
      path: 'entity-alias/id',
    });
    expect((list.data as { key_info: Record<string, unknown> }).key_info[aliasId]).toMatchObject({
      canonical_id: carolId,
      name: 'carol',
    });

    const facts = await h.client.request(coreEntityFacts, { entityId: carolId });
    expect(facts).toEqual({
      id: carolId,
      name: 'carol',
      metadata: {},
      aliases: [{ mount_accessor: up.accessor, name: 'carol' }],
      groups: [],
    });
    expect(await h.client.request(coreEntityFacts, { entityId: 'missing' })).toBeNull();

    expect(
      await h.fail(identityContracts.aliasWrite, {
        mount: idm,
        path: 'entity-alias',
        body: { name: 'carol2', canonical_id: carolId, mount_accessor: up.accessor },
      }),
    ).toMatchObject({
      message: 'Alias already exists for requested entity and mount accessor',
    });
  });

  it('creates the entity when no canonical id is given, and moves aliases between entities', async () => {
    const res = await writeAlias({ name: 'dan', mount_accessor: up.accessor });
    const { id: aliasId, canonical_id: first } = res.data as { id: string; canonical_id: string };
    expect((await readById(first)).data).toMatchObject({ aliases: [{ id: aliasId, name: 'dan' }] });

    const target = (await writeEntity({ name: 'dan-new' })).data as { id: string };
    const moved = await h.call(identityContracts.aliasByIdWrite, {
      mount: idm,
      path: `entity-alias/id/${aliasId}`,
      params: { id: aliasId },
      body: { canonical_id: target.id },
    });
    expect(moved.data).toEqual({ id: aliasId, canonical_id: target.id });
    expect((await readById(first)).data).toMatchObject({ aliases: [] });
    expect((await readById(target.id)).data).toMatchObject({
      aliases: [{ id: aliasId, canonical_id: target.id }],
    });

    expect(
      await h.fail(identityContracts.aliasWrite, {
        mount: idm,
        path: 'entity-alias',
        body: { name: 'x', mount_accessor: 'auth_nope_1' },
      }),
    ).toMatchObject({
      message: 'invalid mount accessor "auth_nope_1"',
    });
    expect(
      await h.fail(identityContracts.aliasWrite, { mount: idm, path: 'entity-alias', body: { name: 'x' } }),
    ).toMatchObject({
      message: "'id' or 'mount_accessor' and 'name' must be provided",
    });
  });

  it('deletes aliases, and entities with their aliases', async () => {
    const { id: aliasId, canonical_id: entityId } = (
      await writeAlias({ name: 'erin', mount_accessor: up.accessor })
    ).data as { id: string; canonical_id: string };
    await h.call(identityContracts.aliasByIdDelete, {
      mount: idm,
      operation: 'delete',
      path: `entity-alias/id/${aliasId}`,
      params: { id: aliasId },
    });
    expect((await readById(entityId)).data).toMatchObject({ aliases: [] });

    const second = (await writeAlias({ name: 'erin', mount_accessor: up.accessor, canonical_id: entityId }))
      .data as { id: string };
    await h.call(identityContracts.entityByIdDelete, {
      mount: idm,
      operation: 'delete',
      path: `entity/id/${entityId}`,
      params: { id: entityId },
    });
    expect(
      await h.fail(identityContracts.entityByIdRead, {
        mount: idm,
        operation: 'read',
        path: `entity/id/${entityId}`,
        params: { id: entityId },
      }),
    ).toMatchObject({
      code: 'not_found',
    });
    expect(
      await h.fail(identityContracts.aliasByIdRead, {
        mount: idm,
        operation: 'read',
        path: `entity-alias/id/${second.id}`,
        params: { id: second.id },
      }),
    ).toMatchObject({
      code: 'not_found',
    });
  });
});

describe('null fields (hvac sends null for what it leaves unset)', () => {
  it('creates and updates entities and aliases with null as "not set"', async () => {
    const nulls = { id: null, metadata: null, policies: null, disabled: null };
    const created = await writeEntity({ name: 'nully', ...nulls });
    const id = (created.data as { id: string }).id;
    expect(created.data).toMatchObject({ name: 'nully' });
    await writeEntity({ name: 'nully', metadata: { a: 'b' }, policies: ['ops'] });
    expect(await writeEntity({ name: 'nully', ...nulls })).toMatchObject({ data: null });
    expect((await readById(id)).data).toMatchObject({
      metadata: { a: 'b' },
      policies: ['ops'],
      disabled: false,
    });
    const alias = await writeAlias({
      name: 'nully',
      mount_accessor: up.accessor,
      canonical_id: id,
      id: null,
      entity_id: null,
      custom_metadata: null,
    });
    expect(alias.data).toMatchObject({ canonical_id: id });
  });
});

describe('caller-chosen metadata keys', () => {
  it('keeps keys named like Object.prototype members ("__proto__", "constructor")', async () => {
    const metadata = JSON.parse('{"__proto__":"p","constructor":"c","toString":"t"}') as Record<
      string,
      string
    >;
    const created = await writeEntity({ name: 'proto-keys', metadata });
    const id = (created.data as { id: string }).id;
    const read = await readById(id);
    const stored = (read.data as { metadata: Record<string, string> }).metadata;
    expect(Object.entries(stored).sort()).toEqual([
      ['__proto__', 'p'],
      ['constructor', 'c'],
      ['toString', 't'],
    ]);
  });
});
