import { randomUUID } from 'node:crypto';
import {
  coreMountTable,
  coreTokenResolve,
  identityContracts,
  identityGroupContracts,
  namespaceContracts as ns,
  sysContracts,
  tokenContracts,
  type CallerContext,
  type Contract,
} from '@coffer/contracts';
import { CoreSysHarness } from '../test-support/core-sys-harness';
import { issueToken } from '../tokens/token.decider';
import { generateAccessor, generateToken } from '../tokens/token-crypto';
import { TokenEventLog } from '../tokens/token.projection';
import { TokenSalt } from '../tokens/token-salt';
import { TokenService } from '../tokens/token.service';
import { mountTtls } from '../tokens/token-ttl';

/**
 * Tokens and identity across namespaces (real Postgres + NATS): a namespace's tokens and
 * accessors end in its id and token stores refuse them elsewhere by it; a group holds entities
 * of any namespace and its policies reach their tokens in its namespace and below only.
 */
describe('tokens and groups across namespaces (NATS + Postgres)', () => {
  let h: CoreSysHarness;
  let rootCaller: Pick<CallerContext, 'accessor' | 'tokenRef'>;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    h = await CoreSysHarness.start('ns-tokens', 1);
    const init = await h.initialise(1, 1);
    await h.unseal(init.keys);
    const root = await h.client.request(coreTokenResolve, { token: init.root_token });
    // token creation needs a parent: the root token
    rootCaller = { accessor: root.accessor, tokenRef: root.tokenRef };
    for (const [parent, path] of [
      ['', 'top'],
      ['top/', 'kid'],
      ['', 'side'],
    ] as const) {
      const made = await h.sys(
        ns.create,
        { operation: 'update', path: `namespaces/${path}`, params: { path } },
        { namespace: parent },
      );
      ids[`${parent}${path}/`] = (made.data as { id: string }).id;
    }
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  }, 30_000);

  const mountOf = async (namespace: string, type: string) => {
    const { mounts } = await h.client.request(coreMountTable, {});
    const found = mounts.find((m) => m.namespace === namespace && m.type === type);
    if (!found) throw new Error(`no ${type} mount in "${namespace}"`);
    return found;
  };
  const asRoot = (namespace: string): CallerContext => ({
    requestId: randomUUID(),
    namespace,
    clientAddress: '127.0.0.1',
    policies: ['root'],
    root: true,
    sudo: true,
    ...rootCaller,
  });
  /** A call to the token store of `namespace` (auth/token/ there). */
  const store = async <C extends Contract>(contract: C, namespace: string, path: string, body = {}) =>
    h.call(
      contract,
      { operation: 'update', mount: await mountOf(namespace, 'token'), path, body },
      asRoot(namespace),
    );
  const createIn = async (namespace: string, body: Record<string, unknown> = { policies: ['default'] }) => {
    const created = await store(tokenContracts.create, namespace, 'create', body);
    return created.auth as { client_token: string; accessor: string };
  };
  const identity = async <C extends Contract>(contract: C, namespace: string, path: string, body = {}) =>
    h.call(
      contract,
      { operation: 'update', mount: await mountOf(namespace, 'identity'), path, body },
      asRoot(namespace),
    );

  it('gives tokens and accessors of a namespace its id as suffix, and none in the root', async () => {
    const top = await createIn('top/');
    expect(top.client_token).toMatch(new RegExp(`^hvs\\.[A-Za-z0-9]+\\.${ids['top/']}$`));
    expect(top.accessor).toMatch(new RegExp(`^[A-Za-z0-9]+\\.${ids['top/']}$`));
    const kid = await createIn('top/kid/');
    expect(kid.client_token.endsWith(`.${ids['top/kid/']}`)).toBe(true);
    const root = await createIn('');
    expect(root.client_token).toMatch(/^hvs\.[A-Za-z0-9]+$/);
    expect(root.accessor).toMatch(/^[A-Za-z0-9]+$/);
    // a custom id gets the suffix too (Vault)
    const custom = await createIn('top/', { id: 'my-token', policies: ['default'] });
    expect(custom.client_token).toBe(`my-token.${ids['top/']}`);
    expect((await h.client.request(coreTokenResolve, { token: custom.client_token })).namespace).toBe('top/');
    // batch tokens carry it outside their sealed body
    const batch = await createIn('top/', { type: 'batch', policies: ['default'] });
    expect(batch.client_token).toMatch(new RegExp(`^hvb\\.[A-Za-z0-9_-]+\\.${ids['top/']}$`));
    const resolved = await h.client.request(coreTokenResolve, { token: batch.client_token });
    expect(resolved.namespace).toBe('top/');
    const looked = await store(tokenContracts.lookup, 'top/', 'lookup', { token: batch.client_token });
    expect(looked.data).toMatchObject({ type: 'batch' });
  });

  it('looks tokens up by value and accessor in their namespace and above, refused beside or below', async () => {
    const t = await createIn('top/');
    const byAccessor = (namespace: string) =>
      store(tokenContracts.lookupAccessor, namespace, 'lookup-accessor', { accessor: t.accessor });
    expect((await byAccessor('top/')).data).toMatchObject({ accessor: t.accessor, id: '' });
    expect((await byAccessor('')).data).toMatchObject({ accessor: t.accessor });
    expect((await h.failure(byAccessor('side/'))).message).toBe('invalid accessor');
    expect((await h.failure(byAccessor('top/kid/'))).message).toBe('invalid accessor');
    // a made-up suffix names no namespace
    const forged = t.accessor.replace(/\.[^.]+$/, '.zzzzz');
    expect(
      (await h.failure(store(tokenContracts.lookupAccessor, '', 'lookup-accessor', { accessor: forged })))
        .message,
    ).toBe('invalid accessor');

    const byValue = (namespace: string) =>
      store(tokenContracts.lookup, namespace, 'lookup', { token: t.client_token });
    expect((await byValue('top/')).data).toMatchObject({ id: t.client_token });
    expect((await h.failure(byValue('side/'))).code).toBe('forbidden');
    const renewed = await store(tokenContracts.renew, 'top/', 'renew', { token: t.client_token });
    expect(renewed.auth?.accessor).toBe(t.accessor);
    expect(
      (
        await h.failure(
          store(tokenContracts.renewAccessor, 'side/', 'renew-accessor', { accessor: t.accessor }),
        )
      ).message,
    ).toBe('invalid accessor');
    expect(
      (
        await h.failure(
          store(tokenContracts.revokeAccessor, 'side/', 'revoke-accessor', { accessor: t.accessor }),
        )
      ).message,
    ).toBe('invalid accessor');
    await store(tokenContracts.revokeAccessor, 'top/', 'revoke-accessor', { accessor: t.accessor });
    const gone = await h.failure(h.client.request(coreTokenResolve, { token: t.client_token }));
    expect(gone.code).toBe('invalid_token');
  });

  it('keeps tokens issued before suffixes working in their namespace', async () => {
    // what a token of "top/" looked like when it landed: no suffix on the token or its accessor
    const app = h.replica(0).app;
    const hasher = await app.get(TokenSalt).get();
    const token = generateToken();
    const accessor = generateAccessor();
    const { created } = issueToken(
      {
        namespace: 'top/',
        parentAccessor: null,
        policies: ['default'],
        meta: {},
        displayName: 'token',
        numUses: 0,
        renewable: true,
        ttl: 3600,
        backendMaxTtl: 0,
        explicitMaxTtl: 0,
        period: 0,
        path: 'auth/token/create',
        entityId: '',
        allowNonExpiring: false,
        creatorExpires: false,
      },
      {
        nowMs: Date.now(),
        mount: mountTtls(),
        mountAccessor: '',
        accessor,
        tokenHash: hasher.hash(token),
        tokenRef: hasher.ref(token),
      },
    );
    await app.get(TokenEventLog).append(accessor, 0, [{ type: 'TokenCreated', data: created }]);
    expect((await h.client.request(coreTokenResolve, { token })).namespace).toBe('top/');
    const looked = await store(tokenContracts.lookupAccessor, 'top/', 'lookup-accessor', { accessor });
    expect(looked.data).toMatchObject({ accessor });
    expect((await store(tokenContracts.lookup, 'top/', 'lookup', { token })).data).toMatchObject({
      id: token,
    });
    // still only there: its stored namespace decides
    expect(
      (await h.failure(store(tokenContracts.lookupAccessor, 'side/', 'lookup-accessor', { accessor })))
        .message,
    ).toBe('invalid accessor');
    await store(tokenContracts.revokeAccessor, 'top/', 'revoke-accessor', { accessor });
    expect((await h.failure(h.client.request(coreTokenResolve, { token }))).code).toBe('invalid_token');
  });

  it("applies a group's policies to a member entity of another namespace below it, not beside it", async () => {
    const policy = `path "kid/secret/data/*" { capabilities = ["read"] }\npath "secret/*" { capabilities = ["update"] }`;
    await h.sys(
      sysContracts.policyWrite,
      { operation: 'update', path: 'policies/acl/team', params: { name: 'team' }, body: { policy } },
      { namespace: 'top/' },
    );
    const entity = await identity(identityContracts.entityWrite, 'top/kid/', 'entity', { name: 'ann' });
    const entityId = (entity.data as { id: string }).id;
    const outsider = await identity(identityContracts.entityWrite, 'side/', 'entity', { name: 'sid' });
    const outsiderId = (outsider.data as { id: string }).id;
    // a group in the parent holds the child's entity (and may hold the sibling's: Vault allows any namespace)
    const group = await identity(identityGroupContracts.groupWrite, 'top/', 'group', {
      name: 'team',
      policies: ['team'],
      member_entity_ids: [entityId, outsiderId],
    });
    const groupId = (group.data as { id: string }).id;
    const unknown = await h.failure(
      identity(identityGroupContracts.groupWrite, 'top/', 'group', { member_entity_ids: ['no-such-entity'] }),
    );
    expect(unknown.message).toBe('invalid entity ID "no-such-entity"');

    const tokens = h.replica(0).app.get(TokenService);
    const issue = async (namespace: string, entity: string) =>
      (
        await tokens.issue(
          {
            namespace,
            parentAccessor: null,
            policies: ['default'],
            meta: {},
            displayName: 'login',
            numUses: 0,
            renewable: true,
            ttl: 600,
            backendMaxTtl: 0,
            explicitMaxTtl: 0,
            period: 0,
            path: 'auth/userpass/login/ann',
            entityId: entity,
            allowNonExpiring: false,
            creatorExpires: false,
          },
          mountTtls(),
          '',
        )
      ).token;
    const kidToken = await issue('top/kid/', entityId);
    const resolved = await h.client.request(coreTokenResolve, { token: kidToken });
    expect(resolved.identityPolicies).toEqual([]);
    expect(resolved.externalPolicies).toEqual({ 'top/': ['team'] });
    const caps = async (token: string, path: string) =>
      (
        await h.sys(sysContracts.capabilitiesToken, {
          operation: 'update',
          path: 'capabilities',
          body: { token, paths: [path] },
        })
      ).data as Record<string, string[]>;
    // "kid/secret/data/*" of top/ is "secret/data/*" seen from top/kid/; top/'s own paths do not reach it
    expect((await caps(kidToken, 'secret/data/x'))['secret/data/x']).toEqual(['read']);
    expect((await caps(kidToken, 'secret/other'))['secret/other']).toEqual(['deny']);
    const looked = await store(tokenContracts.lookup, 'top/kid/', 'lookup', { token: kidToken });
    expect(looked.data).toMatchObject({
      identity_policies: [],
      external_namespace_policies: { [ids['top/']!]: ['team'] },
    });
    // the sibling's entity is a member, but the group's policies do not reach beside its namespace
    const sideToken = await issue('side/', outsiderId);
    const sideResolved = await h.client.request(coreTokenResolve, { token: sideToken });
    expect(sideResolved.externalPolicies).toBeUndefined();
    expect(sideResolved.identityPolicies).toEqual([]);

    // the member entity's deletion removes it from the other namespace's group
    await h.call(
      identityContracts.entityByIdDelete,
      {
        operation: 'delete',
        mount: await mountOf('side/', 'identity'),
        path: `entity/id/${outsiderId}`,
        params: { id: outsiderId },
      },
      asRoot('side/'),
    );
    const read = await h.call(
      identityGroupContracts.groupByIdRead,
      {
        operation: 'read',
        mount: await mountOf('top/', 'identity'),
        path: `group/id/${groupId}`,
        params: { id: groupId },
      },
      asRoot('top/'),
    );
    expect((read.data as { member_entity_ids: string[] }).member_entity_ids).toEqual([entityId]);
  }, 30_000);
});
