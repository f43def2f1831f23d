import { connect } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { engineContract, type RouteTable } from '@coffer/contracts';
import type { GatewayOptions } from '../src';
import {
  call,
  harnessRouteTable,
  mountEntry,
  rawExchange,
  ROOT_TOKEN,
  startHarness,
  statusesOf,
  type Harness,
} from './harness';

/**
 * The HTTP layer under hostile or unusual clients: pipelining order, bodies only read once the
 * token is known, Vault's JSON limits, header floods, Upgrade, exact Content-Type, engine
 * time-outs.
 */

const seq = {
  write: engineContract('seqeng.write'),
  read: engineContract('seqeng.read'),
};

/** A key-value engine whose writes take as long as the body says: concurrent handling would reorder them. */
const seqRoutes: RouteTable = {
  engine: 'seqeng',
  service: 'seqeng',
  help: 'Ordered writes.',
  routes: [
    {
      pattern: 'kv/:key',
      synopsis: 'A value.',
      operations: {
        update: { contract: seq.write, summary: 'Write after `delay` ms.' },
        read: { contract: seq.read, summary: 'Read.' },
      },
    },
  ],
};

interface SeqEngine {
  values: Map<string, unknown>;
  applied: unknown[];
}

/** A harness with the seq engine mounted at seq/ next to the test engine. */
async function startSeqHarness(overrides: Partial<GatewayOptions> = {}): Promise<Harness> {
  const h = await startHarness({
    routeTableFor: (mount) => (mount.type === 'seqeng' ? seqRoutes : harnessRouteTable(mount)),
    ...overrides,
  });
  h.core.mounts.push(mountEntry('seq/', 'seqeng'));
  return h;
}

function serveSeq(h: Harness): SeqEngine {
  const engine: SeqEngine = { values: new Map(), applied: [] };
  h.transport.serve(seq.write, 'seqeng', async (req) => {
    const wait = Number(req.body['delay'] ?? 0);
    // the race this engine exists for: without in-order handling a later, quicker write wins
    if (wait > 0) await delay(wait);
    engine.values.set(req.params['key'] ?? '', req.body['v']);
    engine.applied.push(req.body['v']);
    return {};
  });
  h.transport.serve(seq.read, 'seqeng', async (req) => {
    const key = req.params['key'] ?? '';
    return engine.values.has(key) ? { data: { v: engine.values.get(key) } } : {};
  });
  return engine;
}

const TOKEN = `X-Vault-Token: ${ROOT_TOKEN}\r\n`;

const post = (path: string, body: string, headers = TOKEN): string =>
  `POST ${path} HTTP/1.1\r\nHost: x\r\n${headers}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

/** Sends `data` and resolves with the first complete response (head and Content-Length body). */
function firstResponse(url: string, data: string | Buffer): Promise<{ head: string; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(data));
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = buffered.subarray(0, end).toString('latin1');
      const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
      if (buffered.length < end + 4 + length) return;
      socket.destroy();
      resolve({ head, body: buffered.subarray(end + 4, end + 4 + length).toString('utf8') });
    });
    socket.on('error', reject);
  });
}

const nested = (depth: number): string => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

describe('gateway HTTP hardening', () => {
  let h: Harness;
  let engine: SeqEngine;
  beforeAll(async () => {
    h = await startSeqHarness();
    engine = serveSeq(h);
  });
  afterAll(async () => {
    await h.close();
  });

  describe('pipelined requests on one connection', () => {
    it('applies five pipelined writes to one key in order', async () => {
      const writes = [1, 2, 3, 4, 5].map((v) =>
        post('/v1/seq/kv/order', JSON.stringify({ v, delay: (6 - v) * 25 })),
      );
      const raw = await rawExchange(
        h.url,
        writes.join('') + `GET /v1/seq/kv/order HTTP/1.1\r\nHost: x\r\n${TOKEN}Connection: close\r\n\r\n`,
      );
      expect(statusesOf(raw)).toEqual([204, 204, 204, 204, 204, 200]);
      expect(engine.applied.slice(-5)).toEqual([1, 2, 3, 4, 5]);
      expect(raw).toContain('"data":{"v":5}');
    });

    it('lets a GET pipelined after a POST to the same key see the write', async () => {
      const raw = await rawExchange(
        h.url,
        post('/v1/seq/kv/after', JSON.stringify({ v: 'written', delay: 60 })) +
          `GET /v1/seq/kv/after HTTP/1.1\r\nHost: x\r\n${TOKEN}Connection: close\r\n\r\n`,
      );
      expect(statusesOf(raw)).toEqual([204, 200]);
      expect(raw).toContain('"data":{"v":"written"}');
    });

    it('answers the complete requests before refusing a malformed chunk, then closes', async () => {
      const raw = await rawExchange(
        h.url,
        post('/v1/seq/kv/chunk', JSON.stringify({ v: 'first', delay: 30 })) +
          `POST /v1/seq/kv/chunk HTTP/1.1\r\nHost: x\r\n${TOKEN}Transfer-Encoding: chunked\r\n\r\nzz\r\n`,
      );
      expect(statusesOf(raw)).toEqual([204, 400]);
      expect(raw).toContain('{"errors":["invalid chunk size"]}');
      expect(engine.values.get('chunk')).toBe('first');
    });
  });

  describe('bodies are read only once the caller is known', () => {
    it('answers 403 to a request without a token before its body has even arrived', async () => {
      // Content-Length promises a megabyte; ten bytes come. A body read first would never answer.
      const res = await firstResponse(
        h.url,
        `POST /v1/seq/kv/x HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\n\r\n{"v":"0123`,
      );
      expect(res.head).toMatch(/^HTTP\/1\.1 403 /);
      expect(JSON.parse(res.body)).toEqual({ errors: ['permission denied'] });
    });

    it('answers 403 with an invalid token whatever the body, 400 for the same body with a token', async () => {
      const deep = nested(6000);
      for (const headers of ['', 'X-Vault-Token: not-a-token\r\n']) {
        const raw = await rawExchange(h.url, post('/v1/seq/kv/x', deep, `${headers}Connection: close\r\n`));
        expect(statusesOf(raw)).toEqual([403]);
      }
      const res = await call(h, 'POST', '/v1/seq/kv/x', { rawBody: deep });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        errors: [
          'error parsing JSON: JSON input exceeds allowed nesting depth (listener setting max_json_depth)',
        ],
      });
    });

    it('refuses many small keys without a token unread, and with one by the entry limit', async () => {
      const keys = Array.from({ length: 200_000 }, (_, i) => `"k${i}":0`).join(',');
      const body = `{${keys}}`;
      expect((await call(h, 'POST', '/v1/seq/kv/x', { rawBody: body, token: null })).status).toBe(403);
      const res = await call(h, 'POST', '/v1/seq/kv/x', { rawBody: body });
      expect(res.status).toBe(400);
      expect(res.body.errors[0]).toContain('JSON object exceeds allowed entry count');
      // the connection pool keeps working after a refused body
      expect((await call(h, 'GET', '/v1/test/echo/still')).status).toBe(200);
    });
  });

  describe("Vault's JSON limits", () => {
    it.each([
      ['depth 300', nested(300), 204],
      ['depth 301', nested(301), 400],
      ['a 1 MiB string', JSON.stringify({ v: 'x'.repeat(1024 * 1024) }), 204],
      ['a longer string', JSON.stringify({ v: 'x'.repeat(1024 * 1024 + 1) }), 400],
      ['10 000 array elements', JSON.stringify({ v: new Array(10_000).fill(0) }), 204],
      ['10 001 array elements', JSON.stringify({ v: new Array(10_001).fill(0) }), 400],
      [
        '10 000 object entries',
        JSON.stringify(Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, 1]))),
        204,
      ],
      [
        '10 001 object entries',
        JSON.stringify(Object.fromEntries(Array.from({ length: 10_001 }, (_, i) => [`k${i}`, 1]))),
        400,
      ],
    ])('%s', async (_name, body, status) => {
      const res = await call(h, 'POST', '/v1/seq/kv/limits', { rawBody: body });
      expect(res.status).toBe(status);
      if (status === 400) expect(res.body.errors[0]).toMatch(/^error parsing JSON: JSON .* exceeds allowed/);
    });

    it('answers 400, not 500, for JSON nested 5 002 deep', async () => {
      expect((await call(h, 'POST', '/v1/test/echo/deep', { rawBody: nested(5002) })).status).toBe(400);
    });

    it('takes the limits from the listener options', async () => {
      const small = await startHarness({
        listeners: { api: { address: '127.0.0.1:0', json: { maxDepth: 2 } } },
      });
      try {
        expect((await call(small, 'POST', '/v1/test/echo/x', { rawBody: nested(2) })).status).toBe(200);
        expect((await call(small, 'POST', '/v1/test/echo/x', { rawBody: nested(3) })).status).toBe(400);
      } finally {
        await small.close();
      }
    });
  });

  describe('headers', () => {
    it('answers 431 to more than 1000 header fields instead of dropping the token sent last', async () => {
      const fields = Array.from({ length: 1000 }, (_, i) => `X-F${i}: v\r\n`).join('');
      const raw = await rawExchange(
        h.url,
        `GET /v1/test/echo/x HTTP/1.1\r\nHost: x\r\n${fields}${TOKEN}\r\n`,
      );
      expect(statusesOf(raw)).toEqual([431]);
      expect(raw).toMatch(/\{"errors":\["too many header fields[^"]*"\]\}/);
    });

    it('answers Upgrade requests normally and keeps LIST working on the connection', async () => {
      const raw = await rawExchange(
        h.url,
        `GET /v1/test/echo/up HTTP/1.1\r\nHost: x\r\n${TOKEN}Connection: Upgrade\r\nUpgrade: websocket\r\n\r\n` +
          `LIST /v1/test/folder/a HTTP/1.1\r\nHost: x\r\n${TOKEN}Connection: close\r\n\r\n`,
      );
      expect(statusesOf(raw)).toEqual([200, 200]);
      expect(raw).toContain('"keys":["a","b/"]');
    });
  });

  describe('Content-Type', () => {
    it.each([
      ['an envelope', 'GET', '/v1/test/echo/x', {}],
      ['a denial', 'GET', '/v1/test/echo/x', { token: null }],
      ['an engine error', 'GET', '/v1/test/special/bad', {}],
      ['a 404 outside /v1', 'GET', '/nowhere', {}],
      ['a bad URL escape', 'GET', '/v1/test/%zz', {}],
      ['help', 'GET', '/v1/test/echo/x?help=1', {}],
      ['a 415', 'PATCH', '/v1/test/echo/x', { rawBody: '{}', headers: { 'content-type': 'text/plain' } }],
      ['an internal error', 'GET', '/v1/test/special/boom', {}],
    ] as const)('is exactly application/json on %s', async (_name, method, path, opts) => {
      const res = await call(h, method, path, opts);
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(res.body).toBeDefined();
    });

    it('is exactly application/json on a 413', async () => {
      const small = await startHarness({
        listeners: { api: { address: '127.0.0.1:0', maxRequestSize: 1024 } },
      });
      try {
        const res = await call(small, 'POST', '/v1/test/echo/x', { rawBody: `{"a":"${'x'.repeat(2048)}"}` });
        expect(res.status).toBe(413);
        expect(res.headers.get('content-type')).toBe('application/json');
        expect(res.body).toEqual({ errors: ['http: request body too large'] });
      } finally {
        await small.close();
      }
    });
  });

  describe('engine time-outs', () => {
    it('answers 503 after the configured time-out; a write says it may have been applied', async () => {
      const quick = await startSeqHarness({ engineTimeoutMs: 150 });
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      quick.engine.hold = held;
      // a replica that took the write and does not answer in time
      quick.transport.serve(seq.write, 'seqeng', async () => {
        await held;
        return {};
      });
      try {
        const read = await call(quick, 'GET', '/v1/test/slow');
        expect(read).toMatchObject({
          status: 503,
          body: { errors: ['the "testeng" service did not answer within 150 ms'] },
        });
        const write = await call(quick, 'PUT', '/v1/seq/kv/x', { body: { v: 1 } });
        expect(write.status).toBe(503);
        expect(write.body.errors[0]).toBe(
          'the "seqeng" service did not answer within 150 ms; the request may have been applied',
        );
      } finally {
        release();
        await quick.close();
      }
    });
  });
});
