import { startTarget, START_TIMEOUT_MS, TARGETS, uniq, type ApiClient, type Target } from './support';
import { rawRequest } from './support/raw-http';

jest.setTimeout(60_000);

/** kv v2 over HTTP, against the dev server and the cluster: every route, rule and bad input. */
describe.each(TARGETS)('%s: kv v2', (kind) => {
  let target: Target;
  let root: ApiClient;
  let mount: string;

  beforeAll(async () => {
    target = await startTarget(kind, { label: 'kv2' });
    root = target.root;
  }, START_TIMEOUT_MS);
  afterAll(() => target?.stop());

  beforeEach(async () => {
    mount = uniq('kv2');
    expect((await root.post(`sys/mounts/${mount}`, { type: 'kv', options: { version: '2' } })).status).toBe(
      204,
    );
  });

  const write = (path: string, data: unknown, options?: Record<string, unknown>) =>
    root.post(`${mount}/data/${path}`, { data, ...(options ? { options } : {}) });

  describe('data', () => {
    it('writes versions (200 with version metadata) and reads the latest or a given version', async () => {
      const first = await write('app/db', { password: 'one' });
      expect(first.status).toBe(200);
      expect(first.body.data).toEqual({
        created_time: expect.any(String),
        custom_metadata: null,
        deletion_time: '',
        destroyed: false,
        version: 1,
      });
      expect((await write('app/db', { password: 'two' })).body.data.version).toBe(2);
      const latest = await root.get(`${mount}/data/app/db`);
      expect(latest.status).toBe(200);
      expect(latest.body).toMatchObject({ lease_id: '', lease_duration: 0, renewable: false, auth: null });
      expect(latest.body.data).toMatchObject({ data: { password: 'two' }, metadata: { version: 2 } });
      expect((await root.get(`${mount}/data/app/db`, { query: { version: 1 } })).body.data.data).toEqual({
        password: 'one',
      });
      const missing = await root.get(`${mount}/data/app/nope`);
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ errors: [] });
    });

    it('enforces check-and-set with Vault texts, at engine and key level', async () => {
      expect((await write('c', { a: 1 }, { cas: 0 })).status).toBe(200);
      const mismatch = await write('c', { a: 2 }, { cas: 0 });
      expect(mismatch.status).toBe(400);
      expect(mismatch.body.errors).toEqual(['check-and-set parameter did not match the current version']);
      expect((await write('c', { a: 2 }, { cas: 1 })).status).toBe(200);

      expect((await root.post(`${mount}/config`, { cas_required: true })).status).toBe(204);
      const required = await write('c', { a: 3 });
      expect(required.status).toBe(400);
      expect(required.body.errors).toEqual(['check-and-set parameter required for this call']);
      expect((await root.post(`${mount}/config`, { cas_required: false })).status).toBe(204);

      expect((await root.post(`${mount}/metadata/k`, { cas_required: true })).status).toBe(204);
      expect((await write('k', { a: 1 })).body.errors).toEqual([
        'check-and-set parameter required for this call',
      ]);
      expect((await write('k', { a: 1 }, { cas: 0 })).status).toBe(200);
    });

    it('patches with a JSON merge patch (needs the merge-patch content type); 404 when missing or deleted', async () => {
      await write('p', { a: 1, b: { c: 2, d: 3 } });
      const patched = await root.patch(`${mount}/data/p`, { data: { b: { c: null }, e: 'x' } });
      expect(patched.status).toBe(200);
      expect(patched.body.data.version).toBe(2);
      expect((await root.get(`${mount}/data/p`)).body.data.data).toEqual({ a: 1, b: { d: 3 }, e: 'x' });
      const wrongType = await root.patch(
        `${mount}/data/p`,
        { data: { a: 2 } },
        { headers: { 'content-type': 'application/json' } },
      );
      expect(wrongType.status).toBe(415);
      expect((await root.patch(`${mount}/data/none`, { data: { a: 1 } })).status).toBe(404);
      await root.delete(`${mount}/data/p`);
      const deleted = await root.patch(`${mount}/data/p`, { data: { a: 1 } });
      expect(deleted.status).toBe(404);
    });

    it('soft-deletes, undeletes and destroys, a deleted read answering 404 with its metadata', async () => {
      await write('d', { v: 1 });
      await write('d', { v: 2 });
      expect((await root.delete(`${mount}/data/d`)).status).toBe(204);
      const gone = await root.get(`${mount}/data/d`);
      expect(gone.status).toBe(404);
      expect(gone.body.data).toMatchObject({ data: null, metadata: { version: 2, destroyed: false } });
      expect(gone.body.data.metadata.deletion_time).not.toBe('');
      expect((await root.post(`${mount}/undelete/d`, { versions: [2] })).status).toBe(204);
      expect((await root.get(`${mount}/data/d`)).body.data.data).toEqual({ v: 2 });
      expect((await root.post(`${mount}/delete/d`, { versions: [1] })).status).toBe(204);
      expect((await root.get(`${mount}/data/d`, { query: { version: 1 } })).status).toBe(404);
      expect((await root.put(`${mount}/destroy/d`, { versions: [1, 2] })).status).toBe(204);
      const destroyed = await root.get(`${mount}/data/d`);
      expect(destroyed.status).toBe(404);
      expect(destroyed.body.data.metadata.destroyed).toBe(true);
      expect((await root.post(`${mount}/destroy/d`, {})).body.errors).toEqual(['no version number provided']);
    });

    it('reads subkeys with depth and version', async () => {
      await write('s', { a: 'x', b: { c: 'y', d: { e: 'z' } } });
      const res = await root.get(`${mount}/subkeys/s`);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        subkeys: { a: null, b: { c: null, d: { e: null } } },
        metadata: { version: 1 },
      });
      expect((await root.get(`${mount}/subkeys/s`, { query: { depth: 1 } })).body.data.subkeys).toEqual({
        a: null,
        b: null,
      });
      expect((await root.list(`${mount}/subkeys/s`)).status).toBe(405);
    });
  });

  describe('metadata and config', () => {
    it('reads, writes, patches and lists metadata; DELETE removes the key for good', async () => {
      await write('team/a', { v: 1 });
      await write('team/sub/b', { v: 1 });
      expect(
        (await root.post(`${mount}/metadata/team/a`, { max_versions: 4, custom_metadata: { owner: 'x' } }))
          .status,
      ).toBe(204);
      const meta = await root.get(`${mount}/metadata/team/a`);
      expect(meta.body.data).toMatchObject({
        cas_required: false,
        current_version: 1,
        custom_metadata: { owner: 'x' },
        delete_version_after: '0s',
        max_versions: 4,
        oldest_version: 0,
        versions: { '1': { deletion_time: '', destroyed: false } },
      });
      expect(
        (await root.patch(`${mount}/metadata/team/a`, { custom_metadata: { env: 'prod' } })).status,
      ).toBe(204);
      expect((await root.get(`${mount}/metadata/team/a`)).body.data.custom_metadata).toEqual({
        owner: 'x',
        env: 'prod',
      });
      expect((await root.list(`${mount}/metadata/team`)).body.data.keys).toEqual(['a', 'sub/']);
      expect((await root.get(`${mount}/metadata/team/`, { query: { list: true } })).body.data.keys).toEqual([
        'a',
        'sub/',
      ]);
      expect((await root.list(`${mount}/metadata/`)).body.data.keys).toEqual(['team/']);
      expect((await root.list(`${mount}/metadata/none/`)).status).toBe(404);
      expect((await root.delete(`${mount}/metadata/team/a`)).status).toBe(204);
      expect((await root.get(`${mount}/metadata/team/a`)).status).toBe(404);
      expect((await write('team/a', { v: 2 })).body.data.version).toBe(1);
    });

    it('keeps max_versions versions and applies the engine config', async () => {
      expect(
        (await root.post(`${mount}/config`, { max_versions: 2, delete_version_after: '1h' })).status,
      ).toBe(204);
      expect((await root.get(`${mount}/config`)).body.data).toEqual({
        cas_required: false,
        delete_version_after: '1h0m0s',
        max_versions: 2,
      });
      for (let i = 0; i < 4; i++) await write('mv', { i });
      const meta = (await root.get(`${mount}/metadata/mv`)).body.data;
      expect(Object.keys(meta.versions)).toEqual(['3', '4']);
      expect(meta.oldest_version).toBe(3);
      expect((await root.get(`${mount}/data/mv`, { query: { version: 1 } })).status).toBe(404);
      const written = (await root.get(`${mount}/data/mv`)).body.data.metadata;
      expect(Date.parse(written.deletion_time) - Date.parse(written.created_time)).toBe(3_600_000);
    });
  });

  describe('bad inputs', () => {
    it('rejects a body that is not JSON, data that is not an object, a version that is not an integer', async () => {
      const notJson = await root.post(`${mount}/data/x`, undefined, {
        raw: '{"data": {',
        headers: { 'content-type': 'application/json' },
      });
      expect(notJson.status).toBe(400);
      const notObject = await write('x', 'just a string');
      expect(notObject.status).toBe(400);
      // The contract's text, the same one the engine answers without the gateway (kv2-data.int-spec).
      expect((await write('x', 'x')).body.errors).toEqual([
        `Field validation failed: error converting input for field "data": '' expected a map, got 'string'`,
      ]);
      expect((await write('x', [1, 2])).status).toBe(400);
      expect((await root.post(`${mount}/data/x`, { options: {} })).body.errors).toEqual(['no data provided']);
      const badVersion = await root.get(`${mount}/data/x`, { query: { version: 'latest' } });
      expect(badVersion.status).toBe(400);
      expect(badVersion.body.errors[0]).toContain('"version"');
      expect((await write('x', { a: 1 }, { cas: 'abc' })).body.errors).toEqual([
        'error parsing check-and-set parameter',
      ]);
    });

    it('keeps "__proto__" and "constructor" as ordinary keys of the secret', async () => {
      const raw = '{"__proto__":"x","constructor":"y"}';
      const written = await root.post(`${mount}/data/proto`, undefined, {
        raw: `{"data":${raw}}`,
        headers: { 'content-type': 'application/json' },
      });
      expect(written.status).toBe(200);
      expect((await root.get(`${mount}/data/proto`)).text).toContain(`"data":{"data":${raw},`);
    });

    it('round-trips 1,000 keys and unicode keys, values and paths exactly', async () => {
      const big: Record<string, string> = {};
      for (let i = 0; i < 1000; i++) big[`ключ-${i}-🔑-"\\`] = `値-${i}-\u{1F600}-\n\t"quoted"`;
      const path = encodeURIComponent('秘密') + '/' + encodeURIComponent('🔐 doc');
      expect((await write(path, big)).status).toBe(200);
      const got = await root.get(`${mount}/data/${path}`);
      expect(got.body.data.data).toEqual(big);
      expect(Object.keys(got.body.data.data)).toEqual(Object.keys(big));
      expect((await root.list(`${mount}/metadata/${encodeURIComponent('秘密')}`)).body.data.keys).toEqual([
        '🔐 doc',
      ]);
    });

    it('refuses ".." in a path and a path ending in "."', async () => {
      await write('target', { v: 'kept' });
      const dotdot = await rawRequest(target.baseUrl, {
        method: 'GET',
        path: `/v1/${mount}/data/x/../target`,
        headers: { 'x-service-token': target.rootToken },
      });
      expect(dotdot.status).toBe(400);
      expect(dotdot.text).not.toContain('kept');
      const escape = await rawRequest(target.baseUrl, {
        method: 'POST',
        path: `/v1/${mount}/data/../../sys/policies/acl/evil`,
        headers: { 'x-service-token': target.rootToken, 'content-type': 'application/json' },
        body: JSON.stringify({ data: { a: 1 } }),
      });
      expect(escape.status).toBe(400);
      expect((await root.get('sys/policies/acl/evil')).status).toBe(404);
      const trailingDot = await write('name.', { a: 1 });
      expect(trailingDot.status).toBe(404);
      expect(trailingDot.body.errors).toEqual(['1 error occurred:\n\t* unsupported path\n\n']);
    });

    it('answers a path outside the kv v2 API with 404 and the Vault warning', async () => {
      const res = await root.get(`${mount}/plain-path`);
      expect(res.status).toBe(404);
      expect(res.body.warnings).toEqual([
        "Invalid path for a versioned K/V secrets engine. See the API docs for the appropriate API endpoints to use. If using the Vault CLI, use 'vault kv get' for this operation.",
      ]);
    });
  });
});
