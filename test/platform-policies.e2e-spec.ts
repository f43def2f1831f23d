import { startTarget, START_TIMEOUT_MS, TARGETS, uniq, type ApiClient, type Target } from './support';

jest.setTimeout(60_000);

/** ACL policies over HTTP: the sys/policies/acl routes, the policy language, capabilities. */
describe.each(TARGETS)('%s: policies', (kind) => {
  let target: Target;
  let root: ApiClient;

  beforeAll(async () => {
    target = await startTarget(kind, { label: 'policies' });
    root = target.root;
    await root.put('secret/data/shared/one', { data: { v: '1' } });
    await root.put('secret/data/teams/blue/app', { data: { v: 'blue' } });
    await root.put('secret/data/teams/red/app', { data: { v: 'red' } });
    await root.put('secret/data/super/secret', { data: { v: 'x' } });
  }, START_TIMEOUT_MS);
  afterAll(() => target?.stop());

  const put = (name: string, policy: string) => root.put(`sys/policies/acl/${name}`, { policy });
  const tokenWith = async (...policies: string[]): Promise<ApiClient> => {
    const res = await root.post('auth/token/create', { policies });
    expect(res.status).toBe(200);
    return target.anon.withToken(res.body.auth.client_token);
  };

  describe('sys/policies/acl', () => {
    it('lists the built-in root and default policies', async () => {
      const res = await root.list('sys/policies/acl');
      expect(res.status).toBe(200);
      expect(res.body.data.keys).toEqual(expect.arrayContaining(['default', 'root']));
    });

    it('writes an HCL policy (204) and reads it back verbatim', async () => {
      const name = uniq('hcl');
      const text = 'path "secret/data/shared/*" {\n  capabilities = ["read"]\n}\n';
      expect((await put(name, text)).status).toBe(204);
      const res = await root.get(`sys/policies/acl/${name}`);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ name, policy: text });
      expect((await root.list('sys/policies/acl')).body.data.keys).toContain(name);
    });

    it('accepts the JSON form and base64-encoded text', async () => {
      const json = uniq('json');
      const jsonText = JSON.stringify({ path: { 'secret/data/shared/*': { capabilities: ['read'] } } });
      expect((await put(json, jsonText)).status).toBe(204);
      expect((await (await tokenWith(json)).get('secret/data/shared/one')).status).toBe(200);

      const b64 = uniq('b64');
      const text = 'path "secret/data/shared/*" { capabilities = ["read"] }';
      expect((await put(b64, Buffer.from(text).toString('base64'))).status).toBe(204);
      expect((await root.get(`sys/policies/acl/${b64}`)).body.data.policy).toBe(text);
      expect((await (await tokenWith(b64)).get('secret/data/shared/one')).status).toBe(200);
    });

    it('rejects an unparsable policy with its position, and a missing policy field', async () => {
      const bad = await put(uniq('bad'), 'path "secret/*" {\n  capabilities = ["read"\n');
      expect(bad.status).toBe(400);
      expect(bad.body.errors[0]).toMatch(/line \d+|\d+:\d+/);
      const unknownCap = await put(uniq('bad'), 'path "secret/*" { capabilities = ["fly"] }');
      expect(unknownCap.status).toBe(400);
      expect((await root.put(`sys/policies/acl/${uniq('empty')}`, {})).status).toBe(400);
    });

    it('protects root (immutable) and default (not deletable)', async () => {
      expect((await put('root', 'path "*" { capabilities = ["read"] }')).status).toBe(400);
      expect((await root.delete('sys/policies/acl/root')).status).toBe(400);
      expect((await root.delete('sys/policies/acl/default')).status).toBe(400);
    });

    it('deletes a policy (204); reading it then answers 404', async () => {
      const name = uniq('gone');
      await put(name, 'path "x/*" { capabilities = ["read"] }');
      expect((await root.delete(`sys/policies/acl/${name}`)).status).toBe(204);
      expect((await root.get(`sys/policies/acl/${name}`)).status).toBe(404);
    });

    it('answers 404 for a policy name ending in a period', async () => {
      expect((await root.get('sys/policies/acl/name.')).status).toBe(404);
    });
  });

  describe('the policy language', () => {
    it('grants with a * suffix glob and denies by default', async () => {
      const p = uniq('glob');
      await put(p, 'path "secret/data/teams/*" { capabilities = ["read"] }');
      const t = await tokenWith(p);
      expect((await t.get('secret/data/teams/blue/app')).status).toBe(200);
      expect((await t.get('secret/data/shared/one')).status).toBe(403);
      expect((await t.put('secret/data/teams/blue/app', { data: { v: 'no' } })).status).toBe(403);
    });

    it('matches exactly one segment with +', async () => {
      const p = uniq('plus');
      await put(p, 'path "secret/data/teams/+/app" { capabilities = ["read"] }');
      const t = await tokenWith(p);
      expect((await t.get('secret/data/teams/red/app')).status).toBe(200);
      expect((await t.get('secret/data/shared/one')).status).toBe(403);
    });

    it('lets deny win over any grant, in the same or another policy', async () => {
      const allow = uniq('allow');
      const deny = uniq('deny');
      await put(allow, 'path "secret/data/*" { capabilities = ["read", "list"] }');
      await put(deny, 'path "secret/data/super/*" { capabilities = ["deny"] }');
      const t = await tokenWith(allow, deny);
      expect((await t.get('secret/data/shared/one')).status).toBe(200);
      const denied = await t.get('secret/data/super/secret');
      expect(denied.status).toBe(403);
      expect(denied.body.errors[0]).toContain('permission denied');
    });

    it('prefers the most specific path', async () => {
      const p = uniq('priority');
      await put(
        p,
        'path "secret/data/teams/*" { capabilities = ["read"] }\n' +
          'path "secret/data/teams/red/*" { capabilities = ["deny"] }',
      );
      const t = await tokenWith(p);
      expect((await t.get('secret/data/teams/blue/app')).status).toBe(200);
      expect((await t.get('secret/data/teams/red/app')).status).toBe(403);
    });

    it('needs sudo on root-protected paths', async () => {
      const listOnly = uniq('nosudo');
      const withSudo = uniq('sudo');
      await put(listOnly, 'path "auth/token/accessors" { capabilities = ["list"] }');
      await put(withSudo, 'path "auth/token/accessors" { capabilities = ["list", "sudo"] }');
      expect((await (await tokenWith(listOnly)).list('auth/token/accessors')).status).toBe(403);
      expect((await (await tokenWith(withSudo)).list('auth/token/accessors')).status).toBe(200);
    });

    it('tells create from update with the existence check', async () => {
      const creator = uniq('create-only');
      const updater = uniq('update-only');
      await put(creator, 'path "sys/policies/acl/made-*" { capabilities = ["create"] }');
      await put(updater, 'path "sys/policies/acl/made-*" { capabilities = ["update"] }');
      const c = await tokenWith(creator);
      const u = await tokenWith(updater);
      const fresh = uniq('made');
      const body = { policy: 'path "a/*" { capabilities = ["read"] }' };
      expect((await u.put(`sys/policies/acl/${fresh}`, body)).status).toBe(403);
      expect((await c.put(`sys/policies/acl/${fresh}`, body)).status).toBe(204);
      expect((await c.put(`sys/policies/acl/${fresh}`, body)).status).toBe(403);
      expect((await u.put(`sys/policies/acl/${fresh}`, body)).status).toBe(204);
    });

    it('enforces required, allowed and denied parameters', async () => {
      const p = uniq('params');
      await put(
        p,
        'path "auth/token/create" {\n' +
          '  capabilities        = ["create", "update"]\n' +
          '  required_parameters = ["ttl"]\n' +
          '  allowed_parameters  = { "ttl" = ["1h", "2h"], "display_name" = [], "num_uses" = [] }\n' +
          '  denied_parameters   = { "num_uses" = [] }\n' +
          '}',
      );
      const t = await tokenWith(p);
      expect((await t.post('auth/token/create', { ttl: '1h', display_name: 'ok' })).status).toBe(200);
      expect((await t.post('auth/token/create', { display_name: 'no-ttl' })).status).toBe(403);
      expect((await t.post('auth/token/create', { ttl: '3h' })).status).toBe(403);
      expect((await t.post('auth/token/create', { ttl: '1h', num_uses: 3 })).status).toBe(403);
      expect((await t.post('auth/token/create', { ttl: '1h', meta: { a: 'b' } })).status).toBe(403);
    });

    it('applies a changed or deleted policy on the very next request', async () => {
      const p = uniq('live');
      await put(p, 'path "secret/data/shared/*" { capabilities = ["read"] }');
      const t = await tokenWith(p);
      expect((await t.get('secret/data/shared/one')).status).toBe(200);
      await put(p, 'path "secret/data/shared/*" { capabilities = ["deny"] }');
      expect((await t.get('secret/data/shared/one')).status).toBe(403);
      await put(p, 'path "secret/data/shared/*" { capabilities = ["read"] }');
      expect((await t.get('secret/data/shared/one')).status).toBe(200);
      expect((await root.delete(`sys/policies/acl/${p}`)).status).toBe(204);
      expect((await t.get('secret/data/shared/one')).status).toBe(403);
      await put(p, 'path "secret/data/shared/*" { capabilities = ["read"] }');
      expect((await t.get('secret/data/shared/one')).status).toBe(200);
    });
  });

  describe('capabilities', () => {
    it('reports the caller’s capabilities per path (capabilities-self)', async () => {
      const p = uniq('caps');
      await put(
        p,
        'path "secret/data/teams/*" { capabilities = ["read", "update"] }\n' +
          'path "secret/data/super/*" { capabilities = ["deny"] }',
      );
      const t = await tokenWith(p);
      const res = await t.post('sys/capabilities-self', {
        paths: ['secret/data/teams/blue/app', 'secret/data/super/secret', 'secret/data/elsewhere'],
      });
      expect(res.status).toBe(200);
      expect([...res.body['secret/data/teams/blue/app']].sort()).toEqual(['read', 'update']);
      expect(res.body['secret/data/super/secret']).toEqual(['deny']);
      expect(res.body['secret/data/elsewhere']).toEqual(['deny']);
      expect(res.body.data['secret/data/teams/blue/app']).toBeDefined();
    });

    it('answers for another token (sys/capabilities) and for root', async () => {
      const p = uniq('caps2');
      await put(p, 'path "secret/data/shared/*" { capabilities = ["list", "read"] }');
      const created = await root.post('auth/token/create', { policies: [p] });
      const res = await root.post('sys/capabilities', {
        token: created.body.auth.client_token,
        paths: ['secret/data/shared/one'],
      });
      expect(res.status).toBe(200);
      expect([...res.body['secret/data/shared/one']].sort()).toEqual(['list', 'read']);
      const self = await root.post('sys/capabilities-self', { paths: ['anything/at/all'] });
      expect(self.body['anything/at/all']).toEqual(['root']);
    });
  });
});
