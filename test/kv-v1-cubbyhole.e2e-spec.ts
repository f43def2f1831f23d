import { startTarget, START_TIMEOUT_MS, TARGETS, uniq, type ApiClient, type Target } from './support';

jest.setTimeout(60_000);

const JSON_TYPE = { 'content-type': 'application/json' };

/** kv v1, cubbyhole, and the kv capabilities (create vs update, patch, list) over HTTP. */
describe.each(TARGETS)('%s: kv v1, cubbyhole and kv capabilities', (kind) => {
  let target: Target;
  let root: ApiClient;

  beforeAll(async () => {
    target = await startTarget(kind, { label: 'kv1' });
    root = target.root;
  }, START_TIMEOUT_MS);
  afterAll(() => target?.stop());

  const tokenWith = async (policy: string): Promise<ApiClient> => {
    const name = uniq('pol');
    expect((await root.put(`sys/policies/acl/${name}`, { policy })).status).toBe(204);
    const res = await root.post('auth/token/create', { policies: [name] });
    expect(res.status).toBe(200);
    return target.anon.withToken(res.body.auth.client_token);
  };

  describe('kv v1', () => {
    let mount: string;
    beforeAll(async () => {
      mount = uniq('kv1');
      expect((await root.post(`sys/mounts/${mount}`, { type: 'kv', options: { version: '1' } })).status).toBe(
        204,
      );
    });

    it('writes (204), reads with lease advice but no lease, replaces and deletes', async () => {
      expect(
        (await root.put(`${mount}/app/config`, { user: 'u', port: 5432, nested: { a: [1] } })).status,
      ).toBe(204);
      const read = await root.get(`${mount}/app/config`);
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({
        lease_id: '',
        renewable: false,
        data: { user: 'u', port: 5432, nested: { a: [1] } },
      });
      expect(read.body.lease_duration).toBeGreaterThan(0);
      expect((await root.post(`${mount}/app/config`, { only: 'this' })).status).toBe(204);
      expect((await root.get(`${mount}/app/config`)).body.data).toEqual({ only: 'this' });
      expect((await root.delete(`${mount}/app/config`)).status).toBe(204);
      expect((await root.get(`${mount}/app/config`)).status).toBe(404);
    });

    it('returns a ttl key as lease_duration', async () => {
      await root.put(`${mount}/with-ttl`, { ttl: '30m', v: 'x' });
      const read = await root.get(`${mount}/with-ttl`);
      expect(read.body).toMatchObject({ lease_id: '', lease_duration: 1800, renewable: false });
      expect(read.body.data).toEqual({ ttl: '30m', v: 'x' });
    });

    it('lists a folder with sub-folders ending in "/", 404 when empty', async () => {
      for (const p of ['l/a', 'l/b/c', 'l/b/d', 'l/🔑']) await root.put(`${mount}/${encodeURI(p)}`, { v: 1 });
      expect((await root.list(`${mount}/l`)).body.data.keys).toEqual(['a', 'b/', '🔑']);
      expect((await root.list(`${mount}/l/b/`)).body.data.keys).toEqual(['c', 'd']);
      expect((await root.list(`${mount}/l/a`)).status).toBe(404);
    });

    it('rejects empty bodies and bad JSON', async () => {
      expect((await root.put(`${mount}/empty`, {})).body.errors).toEqual(['missing data fields']);
      expect(
        (
          await root.put(`${mount}/bad`, undefined, {
            raw: 'nope',
            headers: { 'content-type': 'application/json' },
          })
        ).status,
      ).toBe(400);
    });

    it('keeps "__proto__" and "constructor" as ordinary keys of the secret', async () => {
      const raw = '{"__proto__":"x","constructor":"y"}';
      const written = await root.put(`${mount}/proto`, undefined, { raw, headers: JSON_TYPE });
      expect(written.status).toBe(204);
      expect((await root.get(`${mount}/proto`)).text).toContain(`"data":${raw}`);
    });

    it('needs create for a new secret and update for an existing one', async () => {
      const createOnly = await tokenWith(`path "${mount}/cap/*" { capabilities = ["create", "read"] }`);
      const updateOnly = await tokenWith(`path "${mount}/cap/*" { capabilities = ["update", "read"] }`);
      expect((await updateOnly.put(`${mount}/cap/new`, { v: 1 })).status).toBe(403);
      expect((await createOnly.put(`${mount}/cap/new`, { v: 1 })).status).toBe(204);
      expect((await createOnly.put(`${mount}/cap/new`, { v: 2 })).status).toBe(403);
      expect((await updateOnly.put(`${mount}/cap/new`, { v: 2 })).status).toBe(204);
      expect((await createOnly.get(`${mount}/cap/new`)).body.data).toEqual({ v: 2 });
    });
  });

  describe('kv v2 capabilities', () => {
    let mount: string;
    beforeAll(async () => {
      mount = uniq('kv2cap');
      expect((await root.post(`sys/mounts/${mount}`, { type: 'kv', options: { version: '2' } })).status).toBe(
        204,
      );
      await root.post(`${mount}/data/team/existing`, { data: { v: 1 } });
    });

    it('decides create versus update by whether the key exists', async () => {
      const createOnly = await tokenWith(`path "${mount}/data/team/*" { capabilities = ["create"] }`);
      const updateOnly = await tokenWith(`path "${mount}/data/team/*" { capabilities = ["update"] }`);
      expect((await createOnly.post(`${mount}/data/team/fresh`, { data: { v: 1 } })).status).toBe(200);
      expect((await createOnly.post(`${mount}/data/team/existing`, { data: { v: 2 } })).status).toBe(403);
      expect((await updateOnly.post(`${mount}/data/team/existing`, { data: { v: 2 } })).status).toBe(200);
      expect((await updateOnly.post(`${mount}/data/team/other`, { data: { v: 1 } })).status).toBe(403);
    });

    it('needs patch for PATCH', async () => {
      const noPatch = await tokenWith(
        `path "${mount}/data/team/*" { capabilities = ["create", "update", "read"] }`,
      );
      const withPatch = await tokenWith(`path "${mount}/data/team/*" { capabilities = ["patch", "read"] }`);
      expect((await noPatch.patch(`${mount}/data/team/existing`, { data: { p: 1 } })).status).toBe(403);
      expect((await withPatch.patch(`${mount}/data/team/existing`, { data: { p: 1 } })).status).toBe(200);
      expect((await withPatch.get(`${mount}/data/team/existing`)).body.data.data).toMatchObject({ p: 1 });
    });

    it('shows key names to callers with list, whatever they may read', async () => {
      const lister = await tokenWith(`path "${mount}/metadata/*" { capabilities = ["list"] }`);
      const list = await lister.list(`${mount}/metadata/team`);
      expect(list.status).toBe(200);
      expect(list.body.data.keys).toEqual(expect.arrayContaining(['existing', 'fresh']));
      expect((await lister.get(`${mount}/data/team/existing`)).status).toBe(403);
      const noList = await tokenWith(`path "${mount}/data/*" { capabilities = ["read"] }`);
      expect((await noList.list(`${mount}/metadata/team`)).status).toBe(403);
    });
  });

  describe('cubbyhole', () => {
    const newToken = async (): Promise<ApiClient> => {
      const res = await root.post('auth/token/create', { policies: ['default'] });
      expect(res.status).toBe(200);
      return target.anon.withToken(res.body.auth.client_token);
    };

    it('keeps "__proto__" and "constructor" as ordinary keys of the secret', async () => {
      const owner = await newToken();
      const raw = '{"__proto__":"x","constructor":"y"}';
      const written = await owner.put('cubbyhole/proto', undefined, { raw, headers: JSON_TYPE });
      expect(written.status).toBe(204);
      expect((await owner.get('cubbyhole/proto')).text).toContain(`"data":${raw}`);
    });

    it("is private to each token, root's included", async () => {
      const a = await newToken();
      const b = await newToken();
      expect((await a.put('cubbyhole/note', { secret: 'a' })).status).toBe(204);
      expect((await b.put('cubbyhole/note', { secret: 'b' })).status).toBe(204);
      const readA = await a.get('cubbyhole/note');
      expect(readA.body).toMatchObject({ data: { secret: 'a' }, lease_duration: 0, lease_id: '' });
      expect((await b.get('cubbyhole/note')).body.data).toEqual({ secret: 'b' });
      expect((await root.get('cubbyhole/note')).status).toBe(404);
      expect((await a.list('cubbyhole/')).body.data.keys).toEqual(['note']);
      expect((await a.delete('cubbyhole/note')).status).toBe(204);
      expect((await a.get('cubbyhole/note')).status).toBe(404);
      expect((await b.get('cubbyhole/note')).status).toBe(200);
    });

    it('is destroyed when its token is revoked', async () => {
      const a = await newToken();
      await a.put('cubbyhole/doomed', { secret: 'gone soon' });
      await a.put('cubbyhole/dir/more', { secret: 'also' });
      expect((await a.post('auth/token/revoke-self', {})).status).toBe(204);
      expect((await a.get('cubbyhole/doomed')).status).toBe(403);
    });
  });
});
