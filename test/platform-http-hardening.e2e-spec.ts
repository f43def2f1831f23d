import { rawRequest } from './support/raw-http';
import {
  responseStatuses,
  socketExchange,
  startTarget,
  START_TIMEOUT_MS,
  TARGETS,
  uniq,
  wireRequest,
  type Target,
} from './support';

jest.setTimeout(60_000);

/**
 * What five Vault clients and an attacker found (issue 6), against the running server: pipelined
 * requests in order, bodies read only after the token check, Vault's JSON limits, header floods,
 * Upgrade, and `Content-Type: application/json` exactly.
 */
describe.each(TARGETS)('%s: HTTP hardening', (kind) => {
  let target: Target;
  let token: Record<string, string>;

  beforeAll(async () => {
    target = await startTarget(kind, { label: 'http-hardening' });
    token = { 'X-Vault-Token': target.rootToken };
  }, START_TIMEOUT_MS);
  afterAll(() => target?.stop());

  describe('pipelining', () => {
    it('applies five pipelined writes to one key in order', async () => {
      const path = `/v1/secret/data/${uniq('pipelined')}`;
      const writes = [1, 2, 3, 4, 5].map((v) =>
        wireRequest('POST', path, token, JSON.stringify({ data: { v } })),
      );
      const raw = await socketExchange(
        target.baseUrl,
        writes.join('') + wireRequest('GET', path, { ...token, Connection: 'close' }),
      );
      expect(responseStatuses(raw)).toEqual([200, 200, 200, 200, 200, 200]);
      const versions = [...raw.matchAll(/"version":(\d+)/g)].map((m) => Number(m[1]));
      expect(versions).toEqual([1, 2, 3, 4, 5, 5]);
      expect(raw).toContain('"data":{"v":5}');
    });

    it('lets a GET pipelined after a POST to the same key see the write', async () => {
      const path = `/v1/secret/data/${uniq('read-after-write')}`;
      const raw = await socketExchange(
        target.baseUrl,
        wireRequest('POST', path, token, JSON.stringify({ data: { v: 'written' } })) +
          wireRequest('GET', path, { ...token, Connection: 'close' }),
      );
      expect(responseStatuses(raw)).toEqual([200, 200]);
      expect(raw).toContain('"data":{"v":"written"}');
    });

    it('answers a complete request before refusing a bad chunk size sent with it', async () => {
      const path = `/v1/secret/data/${uniq('chunk')}`;
      const raw = await socketExchange(
        target.baseUrl,
        wireRequest('POST', path, token, JSON.stringify({ data: { v: 1 } })) +
          `POST ${path} HTTP/1.1\r\nHost: coffer\r\nX-Vault-Token: ${target.rootToken}\r\n` +
          'Transfer-Encoding: chunked\r\n\r\nzz\r\n',
      );
      expect(responseStatuses(raw)).toEqual([200, 400]);
      expect((await target.root.get(path.slice('/v1/'.length))).body.data.data).toEqual({ v: 1 });
    });
  });

  describe('bodies and JSON limits', () => {
    const nested = (depth: number): string => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

    it('answers 403 to a body without a token before the body has arrived', async () => {
      const res = await rawRequest(target.baseUrl, {
        method: 'POST',
        path: '/v1/secret/data/unauthenticated',
        body: '{"data":{"v":"',
        declaredLength: 31 * 1024 * 1024,
      });
      expect(res.status).toBe(403);
      expect(res.headers['content-type']).toBe('application/json');
    });

    it('answers 400, not 500, for JSON nested 5 002 deep, and 403 without a token', async () => {
      const body = `{"data":${nested(5002)}}`;
      const res = await target.root.put('secret/data/deep', undefined, { raw: body });
      expect(res.status).toBe(400);
      expect(res.body.errors[0]).toContain('exceeds allowed nesting depth');
      expect((await target.anon.put('secret/data/deep', undefined, { raw: body })).status).toBe(403);
    });

    it('refuses more than 10 000 entries in an object with 400', async () => {
      const entries = Array.from({ length: 10_001 }, (_, i) => `"k${i}":"v"`).join(',');
      const res = await target.root.put('secret/data/wide', undefined, { raw: `{"data":{${entries}}}` });
      expect(res.status).toBe(400);
      expect(res.body.errors[0]).toContain('exceeds allowed entry count');
    });
  });

  describe('headers', () => {
    it('answers 431 to a token sent as header field 1 001', async () => {
      const fields: Record<string, string> = {};
      for (let i = 0; i < 1000; i++) fields[`X-Filler-${i}`] = 'x';
      const raw = await socketExchange(
        target.baseUrl,
        wireRequest('GET', '/v1/secret/data/anything', { ...fields, ...token }),
      );
      expect(responseStatuses(raw)).toEqual([431]);
      expect(raw).toMatch(/\{"errors":\["too many header fields[^"]*"\]\}/);
    });

    it('answers an Upgrade request normally and keeps LIST working on the connection', async () => {
      await target.root.put(`secret/data/${uniq('upgrade')}/k`, { data: { v: 1 } });
      const raw = await socketExchange(
        target.baseUrl,
        wireRequest('GET', '/v1/sys/health', { Connection: 'Upgrade', Upgrade: 'websocket' }) +
          `LIST /v1/secret/metadata HTTP/1.1\r\nHost: coffer\r\nX-Vault-Token: ${target.rootToken}\r\n` +
          'Connection: close\r\n\r\n',
      );
      expect(responseStatuses(raw)).toEqual([200, 200]);
      expect(raw).toContain('"keys":[');
    });
  });

  describe('Content-Type', () => {
    it.each([
      ['an envelope', 'GET', 'sys/mounts', true],
      ['sys/health', 'GET', 'sys/health', false],
      ['a 403', 'GET', 'sys/mounts', false],
      ['a 404', 'GET', 'secret/data/never-written', true],
      ['a 404 outside /v1', 'GET', '/nowhere', true],
      ['help', 'GET', 'sys/mounts?help=1', true],
      ['a 405', 'DELETE', 'sys/seal-status', true],
    ])('is exactly application/json on %s', async (_name, method, path, withToken) => {
      const client = withToken ? target.root : target.anon;
      const [p, q] = path.split('?');
      const res = await client.request(method, p ?? '', q ? { query: { help: 1 } } : {});
      if (res.text !== '') expect(res.headers.get('content-type')).toBe('application/json');
    });

    it('is exactly application/json on a 413', async () => {
      const res = await rawRequest(target.baseUrl, {
        method: 'PUT',
        path: '/v1/secret/data/too-big',
        headers: { 'x-vault-token': target.rootToken },
        body: '{"data":{"v":"',
        declaredLength: 32 * 1024 * 1024 + 1,
      });
      expect(res.status).toBe(413);
      expect(res.headers['content-type']).toBe('application/json');
    });
  });
});
