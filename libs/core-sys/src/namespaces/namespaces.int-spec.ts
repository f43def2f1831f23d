import { randomUUID } from 'node:crypto';
import {
  coreEntityFacts,
  coreMountTable,
  coreNamespaceLocks,
  coreTokenResolve,
  corePolicyTexts,
  identityContracts,
  identityGroupContracts,
  invalidation,
  mountDisabled,
  namespaceContracts as ns,
  sysContracts,
  tokenContracts,
  type Contract,
  type Invalidation,
} from '@coffer/contracts';
import { waitFor } from '@coffer/testing';
import { CoreSysHarness } from '../test-support/core-sys-harness';

/**
 * sys/namespaces inside core-sys (real Postgres + NATS): the tree, the per-namespace mount
 * tables, policies and tokens, and deletion cleaning all of them, with two replicas.
 */
describe('namespaces (NATS + Postgres)', () => {
  let h: CoreSysHarness;
  let invalidations: Invalidation[];
  let disabled: { uuid: string }[];
  let rootToken: string;

  beforeAll(async () => {
    h = await CoreSysHarness.start('namespaces', 2);
    const init = await h.initialise(1, 1);
    await h.unseal(init.keys);
    rootToken = init.root_token;
    invalidations = await h.record(invalidation);
    disabled = await h.record(mountDisabled);
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  }, 30_000);

  const inNs = (namespace: string) => ({ namespace });
  const create = (namespace: string, path: string, body: Record<string, unknown> = {}) =>
    h.sys(
      ns.create,
      { operation: 'update', path: `namespaces/${path}`, params: { path }, body },
      inNs(namespace),
    );
  const table = async () => (await h.client.request(coreMountTable, {})).mounts;

  it('creates nested namespaces with their own built-in mounts and default policy', async () => {
    const one = await create('', 'ns1', { custom_metadata: { team: 'a' } });
    expect(one.data).toEqual({
      id: expect.stringMatching(/^[A-Za-z0-9]{5}$/),
      path: 'ns1/',
      custom_metadata: { team: 'a' },
    });
    const two = await create('ns1/', 'ns2');
    expect(two.data).toMatchObject({ path: 'ns1/ns2/' });
    await waitFor(() => invalidations.some((i) => i.kind === 'mounts'));

    const mounts = (await table())
      .filter((m) => m.namespace === 'ns1/ns2/')
      .map((m) => m.path)
      .sort();
    expect(mounts).toEqual(['auth/token/', 'cubbyhole/', 'identity/', 'sys/']);
    const texts = await h.client.request(corePolicyTexts, { names: ['ns1/ns2/default'] });
    expect(texts.policies.map((p) => p.name)).toEqual(['ns1/ns2/default']);

    const listed = await h.sys(ns.list, { operation: 'list', path: 'namespaces' }, inNs('ns1/'));
    expect(listed.data).toEqual({
      keys: ['ns2/'],
      key_info: { 'ns2/': { id: expect.any(String), path: 'ns1/ns2/', custom_metadata: {} } },
    });
    const failure = await h.failure(create('', 'missing/child'));
    expect(failure.code).toBe('invalid_request');
  });

  it('scopes sys/mounts and sys/policies/acl to the namespace of the request', async () => {
    await create('', 'scoped');
    await h.sys(
      sysContracts.mountEnable,
      { operation: 'update', path: 'mounts/kv', params: { path: 'kv' }, body: { type: 'kv' } },
      inNs('scoped/'),
    );
    const listing = await h.sys(
      sysContracts.mountsList,
      { operation: 'read', path: 'mounts' },
      inNs('scoped/'),
    );
    expect(Object.keys(listing.data ?? {}).sort()).toEqual(['cubbyhole/', 'identity/', 'kv/', 'sys/']);
    const rootListing = await h.sys(sysContracts.mountsList, { operation: 'read', path: 'mounts' });
    expect(Object.keys(rootListing.data ?? {})).not.toContain('kv/');

    await h.sys(
      sysContracts.policyWrite,
      {
        operation: 'update',
        path: 'policies/acl/Reader',
        params: { name: 'Reader' },
        body: { policy: 'path "kv/*" { capabilities = ["read"] }' },
      },
      inNs('scoped/'),
    );
    const keys = await h.sys(
      sysContracts.policiesList,
      { operation: 'list', path: 'policies/acl' },
      inNs('scoped/'),
    );
    expect(keys.data).toEqual({ keys: ['default', 'reader', 'root'] });
    const rootKeys = await h.sys(sysContracts.policiesList, { operation: 'list', path: 'policies/acl' });
    expect(rootKeys.data?.keys).not.toContain('reader');
    await waitFor(() => invalidations.some((i) => i.kind === 'policy' && i.keys.includes('scoped/reader')));
  });

  it('issues tokens in the namespace of the token store; deleting the namespace revokes them and removes its mounts', async () => {
    await create('', 'doomed');
    const mountsOf = async () => (await table()).filter((m) => m.namespace === 'doomed/');
    const tokenMount = (await mountsOf()).find((m) => m.type === 'token');
    expect(tokenMount).toBeDefined();
    const root = await h.client.request(coreTokenResolve, { token: rootToken });
    const created = await h.call(
      tokenContracts.create,
      {
        operation: 'update',
        mount: tokenMount!,
        path: 'create',
        body: { policies: ['default'] },
      },
      {
        requestId: 'r',
        namespace: 'doomed/',
        clientAddress: '127.0.0.1',
        accessor: root.accessor,
        tokenRef: root.tokenRef,
        policies: ['root'],
        root: true,
        sudo: true,
      },
    );
    const token = (created.auth as { client_token: string }).client_token;
    expect((await h.client.request(coreTokenResolve, { token })).namespace).toBe('doomed/');
    const uuids = (await mountsOf()).map((m) => m.uuid);
    const refused = await h.failure(
      (async () => {
        await create('doomed/', 'kid');
        return h.sys(ns.delete, {
          operation: 'delete',
          path: 'namespaces/doomed',
          params: { path: 'doomed' },
        });
      })(),
    );
    expect(refused.message).toMatch(/child namespaces/);
    await h.sys(
      ns.delete,
      { operation: 'delete', path: 'namespaces/kid', params: { path: 'kid' } },
      inNs('doomed/'),
    );
    await h.sys(ns.delete, { operation: 'delete', path: 'namespaces/doomed', params: { path: 'doomed' } });
    expect(await mountsOf()).toEqual([]);
    await waitFor(() => uuids.every((u) => disabled.some((d) => d.uuid === u)));
    const gone = await h.failure(h.client.request(coreTokenResolve, { token }));
    expect(gone.code).toBe('invalid_token');
    const read = await h.failure(
      h.sys(ns.read, { operation: 'read', path: 'namespaces/doomed', params: { path: 'doomed' } }),
    );
    expect(read.code).toBe('not_found');
  });
});

describe('identity in namespaces (NATS + Postgres)', () => {
  let h: CoreSysHarness;

  beforeAll(async () => {
    h = await CoreSysHarness.start('ns-identity', 1);
    const init = await h.initialise(1, 1);
    await h.unseal(init.keys);
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  }, 30_000);

  const identityMount = async (namespace: string) => {
    const { mounts } = await h.client.request(coreMountTable, {});
    const found = mounts.find((m) => m.namespace === namespace && m.type === 'identity');
    if (!found) throw new Error(`no identity mount in "${namespace}"`);
    return found;
  };
  const asRoot = (namespace: string) => ({
    requestId: randomUUID(),
    namespace,
    clientAddress: '127.0.0.1',
    policies: ['root'],
    root: true,
    sudo: true,
  });
  const idCall = async <C extends Contract>(
    contract: C,
    namespace: string,
    path: string,
    extra: {
      params?: Record<string, string>;
      body?: Record<string, unknown>;
      operation?: 'read' | 'update' | 'delete' | 'list';
    } = {},
  ) =>
    h.call(
      contract,
      { operation: extra.operation ?? 'update', mount: await identityMount(namespace), path, ...extra },
      asRoot(namespace),
    );
  const entityWrite = (namespace: string, body: Record<string, unknown>) =>
    idCall(identityContracts.entityWrite, namespace, 'entity', { body });
  const readById = (namespace: string, id: string) =>
    idCall(identityContracts.entityByIdRead, namespace, `entity/id/${id}`, {
      operation: 'read',
      params: { id },
    });

  it('keeps entities and groups of a namespace invisible from the root and from siblings', async () => {
    await h.sys(ns.create, { operation: 'update', path: 'namespaces/ida', params: { path: 'ida' } });
    await h.sys(ns.create, { operation: 'update', path: 'namespaces/idb', params: { path: 'idb' } });
    const created = await entityWrite('ida/', { name: 'alice', policies: ['reader'] });
    const id = (created.data as { id: string }).id;

    const own = await readById('ida/', id);
    expect(own.data).toMatchObject({
      id,
      name: 'alice',
      namespace_id: expect.stringMatching(/^[A-Za-z0-9]{5}$/),
    });
    expect((await h.failure(readById('', id))).code).toBe('not_found');
    expect((await h.failure(readById('idb/', id))).code).toBe('not_found');
    const byName = (namespace: string) =>
      idCall(identityContracts.entityByNameRead, namespace, 'entity/name/alice', {
        operation: 'read',
        params: { name: 'alice' },
      });
    expect((await h.failure(byName(''))).code).toBe('not_found');
    const list = (namespace: string) =>
      idCall(identityContracts.entityByIdList, namespace, 'entity/id', { operation: 'list' });
    expect((await list('ida/')).data?.keys).toEqual([id]);
    expect((await h.failure(list('idb/'))).code).toBe('not_found');

    // Names are unique per namespace: "alice" in the root is another entity.
    const rootAlice = await entityWrite('', { name: 'alice' });
    expect((rootAlice.data as { id: string }).id).not.toBe(id);
    // An update by id from another namespace does not reach it.
    expect((await h.failure(entityWrite('idb/', { id, policies: ['x'] }))).message).toBe(
      'entity not found from id',
    );
    // A delete from another namespace is a no-op.
    await idCall(identityContracts.entityByIdDelete, 'idb/', `entity/id/${id}`, {
      operation: 'delete',
      params: { id },
    });
    expect((await readById('ida/', id)).data).toMatchObject({ id });

    const group = await idCall(identityGroupContracts.groupWrite, 'ida/', 'group', {
      body: { name: 'team', member_entity_ids: [id] },
    });
    const groupId = (group.data as { id: string }).id;
    const groupRead = (namespace: string) =>
      idCall(identityGroupContracts.groupByIdRead, namespace, `group/id/${groupId}`, {
        operation: 'read',
        params: { id: groupId },
      });
    expect((await groupRead('ida/')).data).toMatchObject({
      name: 'team',
      member_entity_ids: [id],
      namespace_id: (own.data as { namespace_id: string }).namespace_id,
    });
    expect((await h.failure(groupRead(''))).code).toBe('not_found');
    // Same group name in the root: another group. A group may hold an entity of another
    // namespace (Vault: any namespace; its policies reach only its own subtree), not an unknown id.
    await idCall(identityGroupContracts.groupWrite, '', 'group', { body: { name: 'team' } });
    const foreign = await idCall(identityGroupContracts.groupWrite, 'idb/', 'group', {
      body: { member_entity_ids: [id] },
    });
    expect(foreign.data).toMatchObject({ id: expect.any(String) });
    const unknown = await h.failure(
      idCall(identityGroupContracts.groupWrite, 'idb/', 'group', { body: { member_entity_ids: ['nope'] } }),
    );
    expect(unknown.code).toBe('invalid_request');
  }, 30_000);

  it('deletes the identity objects of a namespace with it', async () => {
    await h.sys(ns.create, { operation: 'update', path: 'namespaces/idgone', params: { path: 'idgone' } });
    const created = await entityWrite('idgone/', { name: 'bob' });
    const id = (created.data as { id: string }).id;
    await idCall(identityGroupContracts.groupWrite, 'idgone/', 'group', {
      body: { name: 'g', member_entity_ids: [id] },
    });
    expect(await h.client.request(coreEntityFacts, { entityId: id })).toMatchObject({
      id,
      groups: [{ name: 'g' }],
    });
    await h.sys(ns.delete, { operation: 'delete', path: 'namespaces/idgone', params: { path: 'idgone' } });
    expect(await h.client.request(coreEntityFacts, { entityId: id })).toBeNull();
    // The namespace made again starts empty.
    await h.sys(ns.create, { operation: 'update', path: 'namespaces/idgone', params: { path: 'idgone' } });
    const list = await h.failure(
      idCall(identityGroupContracts.groupByIdList, 'idgone/', 'group/id', { operation: 'list' }),
    );
    expect(list.code).toBe('not_found');
  }, 30_000);
});

describe('namespace API lock (NATS + Postgres)', () => {
  let h: CoreSysHarness;

  beforeAll(async () => {
    h = await CoreSysHarness.start('ns-lock', 1);
    const init = await h.initialise(1, 1);
    await h.unseal(init.keys);
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  }, 30_000);

  const call = (
    contract: typeof ns.apiLock | typeof ns.apiUnlock,
    namespace: string,
    subpath: string,
    body = {},
  ) =>
    h.sys(
      contract,
      { operation: 'update', path: 'namespaces/api-lock/x', params: { subpath }, body },
      { namespace, root: false, policies: ['default'] },
    );

  it('locks a namespace, lists it for the gateways, and unlocks it with its key only', async () => {
    await h.sys(ns.create, { operation: 'update', path: 'namespaces/lk', params: { path: 'lk' } });
    await h.sys(
      ns.create,
      { operation: 'update', path: 'namespaces/kid', params: { path: 'kid' } },
      { namespace: 'lk/' },
    );
    const locked = await call(ns.apiLock, 'lk/', '');
    const key = (locked.data as { unlock_key: string }).unlock_key;
    expect(key).toMatch(/^[A-Za-z0-9]{24}$/);
    expect(await h.client.request(coreNamespaceLocks, {})).toEqual({ locked: ['lk/'] });
    await call(ns.apiLock, '', 'lk/kid');
    expect((await h.client.request(coreNamespaceLocks, {})).locked.sort()).toEqual(['lk/', 'lk/kid/']);

    expect((await h.failure(call(ns.apiUnlock, 'lk/', '', { unlock_key: 'wrong' }))).code).toBe(
      'permission_denied',
    );
    expect((await h.failure(call(ns.apiUnlock, 'lk/', 'kid', { unlock_key: 'x' }))).code).toBe(
      'service_unavailable',
    );
    await call(ns.apiUnlock, 'lk/', '', { unlock_key: key });
    expect(await h.client.request(coreNamespaceLocks, {})).toEqual({ locked: ['lk/kid/'] });
    // a root token needs no key
    await h.sys(
      ns.apiUnlock,
      { operation: 'update', path: 'namespaces/api-lock/unlock', params: { subpath: 'kid' } },
      { namespace: 'lk/' },
    );
    expect(await h.client.request(coreNamespaceLocks, {})).toEqual({ locked: [] });
  }, 30_000);
});
