import {
  rawRequest,
  startTarget,
  START_TIMEOUT_MS,
  TARGETS,
  uniq,
  type ApiClient,
  type Target,
} from './support';
import { waitForPki } from './pki/pki-peers';

jest.setTimeout(90_000);

/**
 * Namespaces over HTTP: nesting, header/path equivalence, isolation of mounts, policies and
 * tokens (no path trick leaves a namespace), restricted routes, deletion.
 */
describe.each(TARGETS)('%s: namespaces', (kind) => {
  let target: Target;
  let root: ApiClient;
  const ns1 = uniq('ns1');
  const sib = uniq('sib');

  const inNs = (client: ApiClient, namespace: string) => ({
    get: (p: string) => client.get(p, { headers: { 'X-Service-Namespace': namespace } }),
    put: (p: string, body: unknown) => client.put(p, body, { headers: { 'X-Service-Namespace': namespace } }),
    post: (p: string, body: unknown) =>
      client.post(p, body, { headers: { 'X-Service-Namespace': namespace } }),
    list: (p: string) => client.list(p, { headers: { 'X-Service-Namespace': namespace } }),
  });
  const kvV2 = { type: 'kv', options: { version: '2' } };

  beforeAll(async () => {
    target = await startTarget(kind, { label: 'namespaces', readyTimeoutMs: 240_000 });
    root = target.root;
    expect((await root.post(`sys/namespaces/${ns1}`, {})).status).toBe(200);
    expect((await root.post(`sys/namespaces/${sib}`, {})).status).toBe(200);
    expect((await root.post(`${ns1}/sys/mounts/secret`, kvV2)).status).toBe(204);
    expect((await root.post(`${sib}/sys/mounts/secret`, kvV2)).status).toBe(204);
    await root.put('secret/data/top', { data: { where: 'root' } });
    await root.put(`${ns1}/secret/data/x`, { data: { where: 'ns1' } });
    await root.put(`${sib}/secret/data/x`, { data: { where: 'sib' } });
  }, 2 * START_TIMEOUT_MS);
  afterAll(() => target?.stop());

  /** A token of `namespace` with the given policies (of that namespace). */
  const tokenIn = async (namespace: string, policies: string[]): Promise<ApiClient> => {
    const res = await root.post(`${namespace === '' ? '' : `${namespace}/`}auth/token/create`, { policies });
    expect(res.status).toBe(200);
    return target.anon.withToken(res.body.auth.client_token);
  };

  describe('sys/namespaces', () => {
    it('creates nested namespaces, by header or by path prefix, with full paths', async () => {
      const created = await root.post(`sys/namespaces/${ns1}-meta`, { custom_metadata: { team: 'a' } });
      expect(created.status).toBe(200);
      expect(created.body.data).toEqual({
        id: expect.stringMatching(/^[A-Za-z0-9]{5}$/),
        path: `${ns1}-meta/`,
        custom_metadata: { team: 'a' },
      });
      const two = await inNs(root, ns1).post('sys/namespaces/two', {});
      expect(two.status).toBe(200);
      expect(two.body.data.path).toBe(`${ns1}/two/`);
      const three = await root.post(`${ns1}/two/sys/namespaces/three`, {});
      expect(three.body.data.path).toBe(`${ns1}/two/three/`);

      const top = await root.list('sys/namespaces');
      expect(top.status).toBe(200);
      expect(top.body.data.keys).toEqual(expect.arrayContaining([`${ns1}/`, `${sib}/`]));
      const children = await inNs(root, ns1).list('sys/namespaces');
      expect(children.body.data.keys).toEqual(['two/']);
      expect(children.body.data.key_info['two/'].path).toBe(`${ns1}/two/`);
      expect((await root.get(`${ns1}/two/sys/namespaces/three`)).body.data.path).toBe(`${ns1}/two/three/`);
      expect((await root.get(`sys/namespaces/${ns1}/two/three`)).status).toBe(200);
    });

    it('patches custom metadata (null removes a key) and refuses a missing parent or a reserved name', async () => {
      const name = uniq('meta');
      await root.post(`sys/namespaces/${name}`, { custom_metadata: { a: '1', b: '2' } });
      const patched = await root.patch(`sys/namespaces/${name}`, { custom_metadata: { a: null, c: '3' } });
      expect(patched.status).toBe(200);
      expect(patched.body.data.custom_metadata).toEqual({ b: '2', c: '3' });
      expect((await root.post(`sys/namespaces/${uniq('nope')}/child`, {})).status).toBe(400);
      expect((await root.post('sys/namespaces/sys', {})).status).toBe(400);
      expect((await root.get(`sys/namespaces/${uniq('missing')}`)).status).toBe(404);
    });

    it('refuses a namespace named like a mount, and a mount named like a namespace', async () => {
      expect((await root.post('sys/namespaces/secret', {})).status).toBe(400);
      expect((await root.post(`sys/mounts/${ns1}`, kvV2)).status).toBe(400);
    });
  });

  describe('header and path prefix are one path', () => {
    it('writes with the header and reads with the prefix, and combines header + path', async () => {
      const nested = `${ns1}/deep`;
      expect((await root.post(`sys/namespaces/${nested}`, {})).status).toBe(200);
      expect((await inNs(root, nested).post('sys/mounts/kv', kvV2)).status).toBe(204);
      expect((await inNs(root, ns1).put('deep/kv/data/foo', { data: { v: 'combined' } })).status).toBe(200);
      expect((await root.get(`${nested}/kv/data/foo`)).body.data.data).toEqual({ v: 'combined' });
      expect((await inNs(root, nested).get('kv/data/foo')).body.data.data).toEqual({ v: 'combined' });
      const vaultHeader = await root.get('kv/data/foo', { headers: { 'X-Vault-Namespace': `/${nested}/` } });
      expect(vaultHeader.body.data.data).toEqual({ v: 'combined' });
    });

    it('gives each namespace its own mount table and built-in mounts', async () => {
      const mounts = await inNs(root, ns1).get('sys/mounts');
      expect(mounts.status).toBe(200);
      expect(Object.keys(mounts.body.data).sort()).toEqual(
        ['cubbyhole/', 'identity/', 'secret/', 'sys/'].sort(),
      );
      expect(Object.keys((await inNs(root, ns1).get('sys/auth')).body.data)).toEqual(['token/']);
      expect((await root.get(`${ns1}/secret/data/x`)).body.data.data).toEqual({ where: 'ns1' });
      expect((await root.get('secret/data/top')).body.data.data).toEqual({ where: 'root' });
    });
  });

  describe('isolation', () => {
    const reader = 'path "secret/data/*" { capabilities = ["read"] }';

    it('keeps policies per namespace: a child policy is relative to its namespace', async () => {
      expect((await inNs(root, ns1).put('sys/policies/acl/reader', { policy: reader })).status).toBe(204);
      expect(
        (
          await root.put('sys/policies/acl/reader', {
            policy: 'path "nothing/*" { capabilities = ["read"] }',
          })
        ).status,
      ).toBe(204);
      expect((await inNs(root, ns1).get('sys/policies/acl/reader')).body.data.policy).toBe(reader);
      const keys = (await inNs(root, ns1).list('sys/policies/acl')).body.data.keys;
      expect(keys).toEqual(['default', 'reader', 'root']);
      expect((await inNs(root, sib).get('sys/policies/acl/reader')).status).toBe(404);
    });

    it("a child's token reads its own namespace but not its parent's or a sibling's", async () => {
      await inNs(root, ns1).put('sys/policies/acl/reader', { policy: reader });
      const child = await tokenIn(ns1, ['reader']);
      expect((await child.get(`${ns1}/secret/data/x`)).status).toBe(200);
      expect((await inNs(child, ns1).get('secret/data/x')).body.data.data).toEqual({ where: 'ns1' });
      expect((await child.get('secret/data/top')).status).toBe(403);
      expect((await child.get(`${sib}/secret/data/x`)).status).toBe(403);
      expect((await inNs(child, sib).get('secret/data/x')).status).toBe(403);
      const caps = await inNs(child, ns1).post('sys/capabilities-self', {
        paths: ['secret/data/x', 'sys/mounts'],
      });
      expect(caps.status).toBe(200);
      expect(caps.body.data['secret/data/x']).toEqual(['read']);
      expect(caps.body.data['sys/mounts']).toEqual(['deny']);
      // its own token store, not the root's
      expect((await child.get(`${ns1}/auth/token/lookup-self`)).status).toBe(200);
      expect((await child.get('auth/token/lookup-self')).status).toBe(403);
    });

    it('no path trick leaves a namespace', async () => {
      const child = await tokenIn(ns1, ['reader']);
      const tricks = [
        () => inNs(child, ns1).get('../secret/data/top'),
        () => inNs(child, `${ns1}/..`).get('secret/data/top'),
        () => inNs(child, ns1).get(`../${sib}/secret/data/x`),
        () => child.get(`${ns1}/../${sib}/secret/data/x`),
        () => child.get(`${ns1}/%2e%2e/secret/data/top`),
        () => child.get(`${ns1}%2F..%2F${sib}/secret/data/x`),
      ];
      for (const trick of tricks) {
        const res = await trick();
        expect([400, 403, 404]).toContain(res.status);
        expect(JSON.stringify(res.body)).not.toContain('"where"');
      }
      // the raw request line, unnormalised by the client
      const raw = await rawRequest(target.baseUrl, {
        method: 'GET',
        path: `/v1/${ns1}/../secret/data/top`,
        headers: { 'X-Service-Token': child.token ?? '' },
      });
      expect([400, 403, 404]).toContain(raw.status);
      expect(raw.text).not.toContain('"where"');
      // an encoded slash names the same path, under the same checks
      expect((await child.get(`${ns1}%2Fsecret%2Fdata%2Fx`)).status).toBe(200);
    });

    it("a namespace's token store and leases see only its own tokens and leases", async () => {
      const rootSelf = await root.get('auth/token/lookup-self');
      const rootAccessor = rootSelf.body.data.accessor as string;
      const child = await tokenIn(ns1, ['default']);
      const childAccessor = (await child.get(`${ns1}/auth/token/lookup-self`)).body.data.accessor as string;
      const listed = (await root.list(`${ns1}/auth/token/accessors`)).body.data.keys as string[];
      expect(listed).toContain(childAccessor);
      expect(listed).not.toContain(rootAccessor);
      expect((await root.list('auth/token/accessors')).body.data.keys).toContain(childAccessor);
      const lookup = await root.post(`${ns1}/auth/token/lookup-accessor`, { accessor: rootAccessor });
      expect(lookup.status).toBe(400);
      const revoke = await root.post(`${ns1}/auth/token/revoke-accessor`, { accessor: rootAccessor });
      expect(revoke.status).toBe(400);
      expect((await root.get('auth/token/lookup-self')).status).toBe(200);
      const byValue = await root.post(`${ns1}/auth/token/lookup`, { token: target.rootToken });
      expect(byValue.status).toBe(403);
    });

    it("a parent's policy grants paths inside a child", async () => {
      const name = uniq('childgrant');
      await root.put(`sys/policies/acl/${name}`, {
        policy: `path "${ns1}/secret/data/*" { capabilities = ["read"] }`,
      });
      const parent = await tokenIn('', [name]);
      expect((await parent.get(`${ns1}/secret/data/x`)).status).toBe(200);
      expect((await inNs(parent, ns1).get('secret/data/x')).status).toBe(200);
      expect((await parent.get(`${sib}/secret/data/x`)).status).toBe(403);
      expect((await parent.get('secret/data/top')).status).toBe(403);
    });

    it('logs in through a namespace auth method: the token belongs to that namespace', async () => {
      expect((await inNs(root, ns1).post('sys/auth/userpass', { type: 'userpass' })).status).toBe(204);
      await inNs(root, ns1).post('auth/userpass/users/bob', { password: 'pw-bob', policies: 'reader' });
      // the root namespace has no such user (or method)
      expect((await target.anon.post('auth/userpass/login/bob', { password: 'pw-bob' })).status).not.toBe(
        200,
      );
      const login = await inNs(target.anon, ns1).post('auth/userpass/login/bob', { password: 'pw-bob' });
      expect(login.status).toBe(200);
      const bob = target.anon.withToken(login.body.auth.client_token);
      expect((await inNs(bob, ns1).get('secret/data/x')).status).toBe(200);
      expect((await bob.get('secret/data/top')).status).toBe(403);
    });
  });

  describe('identity and leases', () => {
    it('keeps the entities and groups of a namespace in it (by id, by name, in LIST)', async () => {
      const name = uniq('alice');
      const made = await inNs(root, ns1).post('identity/entity', { name, policies: ['reader'] });
      expect(made.status).toBe(200);
      const id = made.body.data.id as string;
      expect((await inNs(root, ns1).get(`identity/entity/id/${id}`)).body.data.name).toBe(name);
      expect((await root.get(`identity/entity/id/${id}`)).status).toBe(404);
      expect((await inNs(root, sib).get(`identity/entity/id/${id}`)).status).toBe(404);
      expect((await root.get(`identity/entity/name/${name}`)).status).toBe(404);
      expect((await inNs(root, ns1).list('identity/entity/id')).body.data.keys).toContain(id);
      const rootList = await root.list('identity/entity/id');
      expect(rootList.status === 404 || !(rootList.body.data.keys as string[]).includes(id)).toBe(true);
      // names are unique per namespace: the same name in the root is another entity
      const again = await root.post('identity/entity', { name });
      expect(again.status).toBe(200);
      expect(again.body.data.id).not.toBe(id);

      const group = await inNs(root, ns1).post('identity/group', { name, member_entity_ids: [id] });
      expect(group.status).toBe(200);
      const groupId = group.body.data.id as string;
      expect((await root.get(`${ns1}/identity/group/id/${groupId}`)).body.data.member_entity_ids).toEqual([
        id,
      ]);
      expect((await root.get(`identity/group/id/${groupId}`)).status).toBe(404);
      expect((await root.get(`identity/group/name/${name}`)).status).toBe(404);
      // a group may hold an entity of another namespace (Vault: any); an unknown id is refused
      const foreign = await inNs(root, sib).post('identity/group', { member_entity_ids: [id] });
      expect(foreign.status).toBe(200);
      const unknown = await inNs(root, sib).post('identity/group', { member_entity_ids: ['nope'] });
      expect(unknown.status).toBe(400);
    });

    it('gives the leases of a namespace its id as suffix, seen from it and its parents only', async () => {
      const nsId = (await root.get(`sys/namespaces/${ns1}`)).body.data.id as string;
      expect(
        (await root.post(`${ns1}/sys/mounts/pki`, { type: 'pki', config: { max_lease_ttl: '87600h' } }))
          .status,
      ).toBe(204);
      await waitForPki(root, `${ns1}/pki`);
      const gen = await inNs(root, ns1).post('pki/root/generate/internal', {
        common_name: 'ns root',
        key_type: 'ec',
        ttl: '2h',
      });
      expect(gen.status).toBe(200);
      const leaseId = gen.body.lease_id as string;
      expect(leaseId).toMatch(new RegExp(`^pki/root/generate/internal/[A-Za-z0-9]+\\.${nsId}$`));
      const lookup = await inNs(root, ns1).put('sys/leases/lookup', { lease_id: leaseId });
      expect(lookup.status).toBe(200);
      expect(lookup.body.data.id).toBe(leaseId);
      expect((await inNs(root, sib).put('sys/leases/lookup', { lease_id: leaseId })).status).toBe(400);
      expect((await inNs(root, sib).put('sys/leases/revoke', { lease_id: leaseId })).status).toBe(400);
      expect((await inNs(root, ns1).put('sys/leases/revoke', { lease_id: leaseId })).status).toBe(204);
      expect((await inNs(root, ns1).put('sys/leases/lookup', { lease_id: leaseId })).status).toBe(400);
    });

    it('counts and lists irrevocable leases of the namespace, its children with include_child_namespaces', async () => {
      const own = await inNs(root, ns1).get('sys/leases/count?type=irrevocable');
      expect(own.status).toBe(200);
      expect(own.body.data.lease_count).toBe(0);
      const withChildren = await root.get('sys/leases?type=irrevocable&include_child_namespaces=true');
      expect(withChildren.status).toBe(200);
      expect(Array.isArray(withChildren.body.data.leases)).toBe(true);
      const bad = await root.get('sys/leases/count?type=irrevocable&include_child_namespaces=maybe');
      expect(bad.status).toBe(400);
    });
  });

  describe('API lock', () => {
    it('locks a namespace subtree (503 but for exempt paths) until its unlock key or a root token unlocks it', async () => {
      const top = uniq('locked');
      await root.post(`sys/namespaces/${top}`, {});
      await root.post(`sys/namespaces/${top}/kid`, {});
      await root.post(`${top}/kid/sys/mounts/secret`, kvV2);
      await root.put(`${top}/kid/secret/data/x`, { data: { v: 1 } });
      const locked = await inNs(root, top).post('sys/namespaces/api-lock/lock', {});
      expect(locked.status).toBe(200);
      const unlockKey = locked.body.data.unlock_key as string;
      expect(unlockKey).toMatch(/^[A-Za-z0-9]{24}$/);

      const message = `API access to this namespace has been locked by an administrator - "${top}" must be unlocked to gain access.`;
      for (const res of [
        await root.get(`${top}/kid/secret/data/x`),
        await inNs(root, top).get('sys/mounts'),
        await inNs(root, `${top}/kid`).get('secret/data/x'),
      ]) {
        expect(res.status).toBe(503);
        expect(res.body.errors).toEqual([message]);
      }
      // outside the subtree and on exempt paths all is as before
      expect((await root.get('secret/data/top')).status).toBe(200);
      expect((await root.get(`${ns1}/secret/data/x`)).status).toBe(200);
      expect((await inNs(root, top).get('sys/seal-status')).status).toBe(200);
      // a descendant is named by the subpath; a second lock of the same namespace is refused; a
      // lock inside a locked namespace is itself locked out
      const kidLock = await root.post(`sys/namespaces/api-lock/lock/${top}/kid`, {});
      expect(kidLock.status).toBe(200);
      expect((await root.post(`sys/namespaces/api-lock/lock/${top}`, {})).status).toBe(400);
      expect((await inNs(root, top).post('sys/namespaces/api-lock/lock', {})).status).toBe(503);

      // a token that is not root needs the key
      const unlocker = uniq('unlocker');
      await root.put(`sys/policies/acl/${unlocker}`, {
        policy: `path "${top}/sys/namespaces/api-lock/unlock" { capabilities = ["update"] }`,
      });
      const holder = await tokenIn('', [unlocker]);
      const unlock = (client: ApiClient, body: unknown) =>
        inNs(client, top).post('sys/namespaces/api-lock/unlock', body);
      expect((await unlock(holder, { unlock_key: 'nope' })).status).toBe(403);
      expect((await unlock(holder, {})).status).toBe(400);
      expect((await unlock(target.anon, { unlock_key: unlockKey })).status).toBe(403);
      // the key unlocks the top; the kid stays locked on its own until a root token unlocks it
      expect((await unlock(holder, { unlock_key: unlockKey })).status).toBe(204);
      expect((await inNs(root, top).get('sys/mounts')).status).toBe(200);
      const kidStill = await root.get(`${top}/kid/secret/data/x`);
      expect(kidStill.status).toBe(503);
      expect(kidStill.body.errors[0]).toContain(`"${top}/kid"`);
      expect((await root.post(`${top}/sys/namespaces/api-lock/unlock/kid`, {})).status).toBe(204);
      expect((await root.get(`${top}/kid/secret/data/x`)).body.data.data).toEqual({ v: 1 });
    });
  });

  describe('governing policies', () => {
    it('keeps RGPs and EGPs in their namespace: managed there, applied there and below only', async () => {
      const reader = uniq('nsreader');
      const acl = { policy: 'path "secret/data/*" { capabilities = ["read"] }' };
      expect((await inNs(root, ns1).put(`sys/policies/acl/${reader}`, acl)).status).toBe(204);
      expect((await inNs(root, sib).put(`sys/policies/acl/${reader}`, acl)).status).toBe(204);
      const deny = Buffer.from('main = rule { false }').toString('base64');
      const egp = uniq('nsegp');
      const rgp = uniq('nsrgp');
      expect(
        (
          await inNs(root, ns1).put(`sys/policies/egp/${egp}`, {
            policy: deny,
            enforcement_level: 'hard-mandatory',
            paths: ['secret/data/*'],
          })
        ).status,
      ).toBe(204);
      expect(
        (
          await root.put(`${ns1}/sys/policies/rgp/${rgp}`, {
            policy: deny,
            enforcement_level: 'hard-mandatory',
          })
        ).status,
      ).toBe(204);
      expect((await inNs(root, ns1).list('sys/policies/egp')).body.data.keys).toEqual([egp]);
      expect((await root.get(`sys/policies/egp/${egp}`)).status).toBe(404);
      expect((await inNs(root, sib).get(`sys/policies/rgp/${rgp}`)).status).toBe(404);
      expect((await inNs(root, ns1).get(`sys/policies/rgp/${rgp}`)).body.data).toMatchObject({
        name: rgp,
        enforcement_level: 'hard-mandatory',
      });

      // the EGP governs ns1's secret/data/*, not the sibling's
      const inNs1 = await tokenIn(ns1, [reader]);
      const denied = await inNs1.get(`${ns1}/secret/data/x`);
      expect(denied.status).toBe(403);
      expect(denied.body.errors.join('\n')).toContain(`${ns1}/${egp}`);
      const inSib = await tokenIn(sib, [reader]);
      expect((await inSib.get(`${sib}/secret/data/x`)).status).toBe(200);
      // the RGP attaches through the policy names of ns1's tokens only
      expect((await root.delete(`${ns1}/sys/policies/egp/${egp}`)).status).toBe(204);
      expect((await inNs1.get(`${ns1}/secret/data/x`)).status).toBe(200);
      const withRgp = await tokenIn(ns1, [reader, rgp]);
      expect((await withRgp.get(`${ns1}/secret/data/x`)).status).toBe(403);
      const sibWithName = await tokenIn(sib, [reader, rgp]);
      expect((await sibWithName.get(`${sib}/secret/data/x`)).status).toBe(200);
      expect((await root.delete(`${ns1}/sys/policies/rgp/${rgp}`)).status).toBe(204);
      expect((await withRgp.get(`${ns1}/secret/data/x`)).status).toBe(200);
    });
  });

  describe('restricted routes', () => {
    it('are served in the root namespace only', async () => {
      expect((await root.get('sys/plugins/catalog')).status).toBe(200);
      for (const p of ['sys/plugins/catalog', 'sys/key-status', 'sys/audit', 'sys/rekey/init']) {
        const res = await inNs(root, ns1).get(p);
        expect(res.status).toBe(404);
      }
      expect((await inNs(root, ns1).put('sys/seal', {})).status).toBe(404);
      expect((await root.get('sys/seal-status')).status).toBe(200);
    });
  });

  describe('deletion', () => {
    it('refuses while children exist, then revokes tokens, removes mounts and their data', async () => {
      const gone = uniq('gone');
      await root.post(`sys/namespaces/${gone}`, {});
      await root.post(`sys/namespaces/${gone}/kid`, {});
      await root.post(`${gone}/sys/mounts/secret`, kvV2);
      await root.put(`${gone}/secret/data/x`, { data: { v: 'doomed' } });
      expect((await root.post(`${gone}/identity/entity`, { name: 'doomed' })).status).toBe(200);
      expect((await root.post(`${gone}/identity/group`, { name: 'doomed' })).status).toBe(200);
      const token = await tokenIn(gone, ['default']);
      expect((await token.get(`${gone}/auth/token/lookup-self`)).status).toBe(200);

      const refused = await root.delete(`sys/namespaces/${gone}`);
      expect(refused.status).toBe(400);
      expect(refused.body.errors[0]).toMatch(/child namespaces/);
      expect((await root.delete(`${gone}/sys/namespaces/kid`)).status).toBe(204);
      expect((await root.delete(`sys/namespaces/${gone}`)).status).toBe(204);

      expect((await root.get(`sys/namespaces/${gone}`)).status).toBe(404);
      expect((await token.get(`${gone}/auth/token/lookup-self`)).status).toBe(403);
      expect((await root.get(`${gone}/secret/data/x`)).status).toBe(404);
      // a namespace of the same name starts empty
      await root.post(`sys/namespaces/${gone}`, {});
      await root.post(`${gone}/sys/mounts/secret`, kvV2);
      expect((await root.get(`${gone}/secret/data/x`)).status).toBe(404);
      expect((await root.get(`${gone}/identity/entity/name/doomed`)).status).toBe(404);
      expect((await root.list(`${gone}/identity/group/name`)).status).toBe(404);
      expect((await root.delete(`sys/namespaces/${gone}`)).status).toBe(204);
    });
  });
});
