import { execFile } from 'node:child_process';
import http from 'node:http';
import { promisify } from 'node:util';
import { rawRequest } from './support/raw-http';
import { startTarget, START_TIMEOUT_MS, TARGETS, uniq, type ApiClient, type Target } from './support';

jest.setTimeout(60_000);
const run = promisify(execFile);

/** The gateway's HTTP surface: LIST, paths, limits, content types, errors, help, headers, ops. */
describe.each(TARGETS)('%s: HTTP conventions', (kind) => {
  let target: Target;
  let root: ApiClient;
  let limited: string;

  beforeAll(async () => {
    target = await startTarget(kind, { label: 'http' });
    root = target.root;
    for (const k of ['a', 'b', 'c/d']) await root.put(`secret/data/listing/${k}`, { data: { k } });
    await root.put('secret/data/allowed/doc', { data: { v: 'ok' } });
    const policy = uniq('allowed');
    await root.put(`sys/policies/acl/${policy}`, {
      policy: 'path "secret/data/allowed/*" { capabilities = ["read"] }',
    });
    limited = (await root.post('auth/token/create', { policies: [policy] })).body.auth.client_token;
  }, START_TIMEOUT_MS);
  afterAll(() => target?.stop());

  describe('LIST', () => {
    it('equals GET with list=true, folders ending in "/"', async () => {
      const viaVerb = await root.list('secret/metadata/listing');
      const viaQuery = await root.get('secret/metadata/listing', { query: { list: 'true' } });
      expect(viaVerb.status).toBe(200);
      expect(viaVerb.body.data.keys).toEqual(['a', 'b', 'c/']);
      expect(viaQuery.body.data).toEqual(viaVerb.body.data);
    });

    it('answers 404 with an empty errors list when there is nothing to list', async () => {
      const res = await root.list('secret/metadata/nothing-here');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ errors: [] });
    });

    it('works with curl over one keep-alive connection, also after a chunked POST', async () => {
      const url = (p: string) => `${target.baseUrl}/v1/${p}`;
      const auth = ['-H', `X-Vault-Token: ${target.rootToken}`];
      const fmt = ['-s', '-o', '/dev/null', '-w', '%{http_code} %{num_connects}\\n'];
      const { stdout } = await run('curl', [
        ...fmt,
        ...auth,
        '-X',
        'LIST',
        url('secret/metadata/listing'),
        '--next',
        ...fmt,
        ...auth,
        '-X',
        'LIST',
        url('secret/metadata/listing/c'),
        '--next',
        ...fmt,
        ...auth,
        '-H',
        'Transfer-Encoding: chunked',
        '-H',
        'Content-Type: application/json',
        '--data-binary',
        JSON.stringify({ data: { k: 'chunked' } }),
        url('secret/data/listing/e'),
        '--next',
        ...fmt,
        ...auth,
        '-X',
        'LIST',
        url('secret/metadata/listing'),
        '--next',
        ...fmt,
        ...auth,
        url('secret/data/listing/e'),
      ]);
      // One connection for all five requests: the first connects, the others reuse it.
      expect(stdout.trim().split('\n')).toEqual(['200 1', '200 0', '200 0', '200 0', '200 0']);
      const { stdout: keys } = await run('curl', [
        '-s',
        ...auth,
        '-X',
        'LIST',
        url('secret/metadata/listing'),
      ]);
      expect(JSON.parse(keys).data.keys).toEqual(['a', 'b', 'c/', 'e']);
    });

    it('works with Node fetch, many at once, interleaved with writes', async () => {
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          i % 4 === 0
            ? root.put(`secret/data/listing/f${i}`, { data: { i } }).then((r) => r.status)
            : root
                .list('secret/metadata/listing')
                .then((r) => (r.body.data.keys.includes('a') ? r.status : -1)),
        ),
      );
      expect(new Set(results)).toEqual(new Set([200]));
    });

    it('keeps request boundaries on one socket: chunked POST, LIST, GET with node:http', async () => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const headers = { 'x-vault-token': target.rootToken, 'content-type': 'application/json' };
        const post = await rawRequest(target.baseUrl, {
          agent,
          method: 'POST',
          path: '/v1/secret/data/listing/g',
          headers,
          body: JSON.stringify({ data: { k: 'g'.repeat(5000) } }),
          chunkSize: 1000,
        });
        expect(post.status).toBe(200);
        const list = await rawRequest(target.baseUrl, {
          agent,
          method: 'LIST',
          path: '/v1/secret/metadata/listing',
          headers,
        });
        expect(list.status).toBe(200);
        expect(list.reusedSocket).toBe(true);
        expect(list.json.data.keys).toContain('g');
        const get = await rawRequest(target.baseUrl, {
          agent,
          method: 'GET',
          path: '/v1/secret/data/listing/g',
          headers,
        });
        expect(get.reusedSocket).toBe(true);
        expect(get.json.data.data.k).toHaveLength(5000);
      } finally {
        agent.destroy();
      }
    });
  });

  describe('paths', () => {
    const escapes = [
      '/v1/secret/data/allowed/../../../sys/policies/acl',
      '/v1/secret/data/allowed/%2e%2e/%2e%2e/%2e%2e/sys/policies/acl',
      '/v1/secret/data/allowed/%2E%2E/%2E%2E/%2E%2E/auth/token/accessors?list=true',
      '/v1/secret/data/allowed/..%2f..%2f..%2fsys/policies/acl',
      '/v1/secret/../sys/mounts',
      '/v1/secret/data/allowed/./../../../sys/mounts',
    ];

    it.each(escapes)('never lets %s escape the granted mount path', async (path) => {
      const res = await rawRequest(target.baseUrl, {
        method: 'GET',
        path,
        headers: { 'x-vault-token': limited },
      });
      expect([400, 403, 404]).toContain(res.status);
      expect(res.json?.errors).toEqual(expect.any(Array));
    });

    it('normalises or rejects "." and "//" segments, never mis-routing them', async () => {
      for (const path of [
        '/v1/secret/data/./allowed/doc',
        '/v1/secret//data/allowed/doc',
        '/v1/secret/data/allowed//doc',
      ]) {
        const res = await rawRequest(target.baseUrl, {
          method: 'GET',
          path,
          headers: { 'x-vault-token': limited },
        });
        if (res.status === 200) expect(res.json.data.data).toEqual({ v: 'ok' });
        else expect([400, 404]).toContain(res.status);
      }
    });
  });

  describe('bodies and content types', () => {
    it('answers 413 for a body over 32 MiB', async () => {
      const res = await rawRequest(target.baseUrl, {
        method: 'PUT',
        path: '/v1/secret/data/too-big',
        headers: { 'x-vault-token': target.rootToken, 'content-type': 'application/json' },
        body: Buffer.from(`{"data":{"v":"${'a'.repeat(64 * 1024)}`),
        declaredLength: 32 * 1024 * 1024 + 1,
      });
      expect(res.status).toBe(413);
      expect(res.json.errors[0]).toContain('too large');
    });

    // Cluster mode carries requests over NATS, whose max_payload (1 MiB by default) bounds a
    // request below the listener's 32 MiB; larger ones answer 413 too.
    it('accepts a large body within the limits on the same route', async () => {
      const value = 'b'.repeat(512 * 1024);
      const res = await root.put('secret/data/big-enough', { data: { v: value } });
      expect(res.status).toBe(200);
      expect((await root.get('secret/data/big-enough')).body.data.data.v).toHaveLength(value.length);
    });

    it('answers 400 for malformed JSON', async () => {
      const res = await root.put('secret/data/malformed', undefined, {
        raw: '{"data": {"v": ',
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(400);
      expect(res.body.errors).toHaveLength(1);
    });

    it('requires application/merge-patch+json for PATCH', async () => {
      await root.put('secret/data/patchable', { data: { a: '1' } });
      const wrong = await root.patch(
        'secret/data/patchable',
        { data: { b: '2' } },
        {
          headers: { 'content-type': 'application/json' },
        },
      );
      expect([400, 415]).toContain(wrong.status);
      const right = await root.patch('secret/data/patchable', { data: { b: '2' } });
      expect(right.status).toBe(200);
      expect((await root.get('secret/data/patchable')).body.data.data).toEqual({ a: '1', b: '2' });
    });
  });

  describe('responses and errors', () => {
    it('wraps data in the envelope', async () => {
      const res = await root.get('secret/data/allowed/doc');
      expect(res.headers.get('content-type')).toContain('application/json');
      expect(res.body).toMatchObject({
        request_id: expect.any(String),
        lease_id: '',
        renewable: false,
        lease_duration: 0,
        wrap_info: null,
        auth: null,
      });
      expect(res.body.data.data).toEqual({ v: 'ok' });
    });

    it('answers 404 "no handler for route" outside every mount', async () => {
      const res = await root.get('nomount/x/y');
      expect(res.status).toBe(404);
      expect(res.body.errors).toEqual(['no handler for route "nomount/x/y". route entry not found.']);
    });

    it('answers 404 "unsupported path" inside a mount and 405 "unsupported operation"', async () => {
      const path = await root.get('sys/no-such-route');
      expect(path.status).toBe(404);
      expect(path.body.errors[0]).toContain('unsupported path');
      const op = await root.delete('sys/seal-status');
      expect(op.status).toBe(405);
      expect(op.body.errors[0]).toContain('unsupported operation');
    });

    it('serves ?help=1 with markdown and an OpenAPI document', async () => {
      const res = await root.get('sys/mounts', { query: { help: 1 } });
      expect(res.status).toBe(200);
      expect(res.body.help).toEqual(expect.any(String));
      expect(res.body.openapi.openapi).toMatch(/^3\./);
      expect(Object.keys(res.body.openapi.paths).length).toBeGreaterThan(0);
      const kv = await root.get('secret/', { query: { help: 1 } });
      expect(kv.status).toBe(200);
      expect(Object.keys(kv.body.openapi.paths).some((p) => p.includes('data'))).toBe(true);
      expect((await target.anon.withToken(limited).get('sys/mounts', { query: { help: 1 } })).status).toBe(
        403,
      );
    });
  });

  describe('headers', () => {
    it('accepts the X-Vault-* spellings of the X-Service-* headers', async () => {
      const res = await target.anon.get('secret/data/allowed/doc', {
        headers: { 'x-vault-token': limited, 'x-vault-request': 'true', 'x-vault-namespace': '' },
      });
      expect(res.status).toBe(200);
      const svc = await target.anon.get('secret/data/allowed/doc', {
        headers: { 'x-service-token': limited, 'x-service-request': 'true', 'x-service-namespace': '' },
      });
      expect(svc.status).toBe(200);
    });
  });

  describe('ops listener', () => {
    it('serves GET and HEAD /health with 200 and an empty body', async () => {
      const get = await fetch(`${target.opsUrl}/health`);
      expect(get.status).toBe(200);
      expect(await get.text()).toBe('');
      expect((await fetch(`${target.opsUrl}/health`, { method: 'HEAD' })).status).toBe(200);
    });
  });
});
