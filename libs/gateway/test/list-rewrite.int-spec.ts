import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingMessage, Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { waitFor } from '@coffer/testing';
import fc from 'fast-check';
import { createListRewriteServer } from '../src';
import { serialise, type ModelRequest } from '../src/http/list-rewrite/framer-test-kit';
import { call, rawExchange, startHarness, statusesOf, type Harness } from './harness';

const run = promisify(execFile);

const TOKEN_HEADER = 'X-Service-Token: root-token\r\n';

describe('LIST over real connections', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it('serves curl -X LIST on one keep-alive connection, also after a chunked POST', async () => {
    const common = [
      '-sS',
      '-H',
      'X-Service-Token: root-token',
      '-o',
      '/dev/null',
      '-w',
      '%{http_code} %{num_connects}\\n',
    ];
    const { stdout } = await run('curl', [
      ...common,
      '-X',
      'LIST',
      `${h.url}/v1/test/folder/a`,
      '--next',
      ...common,
      '-X',
      'POST',
      '-H',
      'Transfer-Encoding: chunked',
      '--data-binary',
      '{"x":1}',
      `${h.url}/v1/test/echo/x`,
      '--next',
      ...common,
      '-X',
      'LIST',
      `${h.url}/v1/test/folder/b/?q=1`,
      '--next',
      ...common,
      '-X',
      'LIST',
      `${h.url}/v1/test/folder/empty`,
    ]);
    // one connection for all four: num_connects is 0 for a reused connection
    expect(stdout.trim().split('\n')).toEqual(['200 1', '200 0', '200 0', '404 0']);
    const lists = h.engine.requests.filter((r) => r.req.operation === 'list').slice(-3);
    expect(lists.map((r) => r.req.params['prefix'])).toEqual(['a/', 'b/', 'empty/']);
    expect(lists[1]?.req.query).toEqual({ q: '1' });
  });

  it('serves LIST from Node fetch (undici) on a keep-alive connection', async () => {
    for (const path of ['/v1/test/folder/x', '/v1/test/folder/y?list=false']) {
      const res = await fetch(`${h.url}${path}`, {
        method: 'LIST',
        headers: { 'x-service-token': 'root-token' },
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { data: { keys: string[] } }).data.keys).toEqual(['a', 'b/']);
    }
  });

  it('handles pipelined requests, chunked bodies with trailers and LIST in one write', async () => {
    const raw = await rawExchange(
      h.url,
      `GET /v1/test/echo/one HTTP/1.1\r\nHost: x\r\n${TOKEN_HEADER}\r\n` +
        `LIST /v1/test/folder/two HTTP/1.1\r\nHost: x\r\n${TOKEN_HEADER}\r\n` +
        `POST /v1/test/echo/three HTTP/1.1\r\nHost: x\r\n${TOKEN_HEADER}Transfer-Encoding: chunked\r\n\r\n` +
        `4;ext=1\r\n{"a"\r\n3\r\n:1}\r\n0\r\nX-Trailer: t\r\n\r\n` +
        `POST /v1/test/echo/four HTTP/1.1\r\nHost: x\r\n${TOKEN_HEADER}Content-Length: 25\r\n\r\n{"b":"LIST / HTTP/1.1\\r"}` +
        `LIST /v1/test/folder/five HTTP/1.1\r\nHost: x\r\n${TOKEN_HEADER}Connection: close\r\n\r\n`,
    );
    expect(statusesOf(raw)).toEqual([200, 200, 200, 200, 200]);
    expect(raw).toContain('"body":{"a":1}');
    expect(raw).toContain('"body":{"b":"LIST / HTTP/1.1\\r"}');
    expect((raw.match(/"keys":\["a","b\/"\]/g) ?? []).length).toBe(2);
  });

  it('accepts a body without any Content-Type header', async () => {
    const raw = await rawExchange(
      h.url,
      `PUT /v1/test/echo/ct HTTP/1.1\r\nHost: x\r\n${TOKEN_HEADER}Content-Length: 7\r\nConnection: close\r\n\r\n{"c":3}`,
    );
    expect(statusesOf(raw)).toEqual([200]);
    expect(raw).toContain('"body":{"c":3}');
  });

  it('refuses ambiguous framing with 400 and closes, after answering the requests before it', async () => {
    const raw = await rawExchange(
      h.url,
      `GET /v1/test/echo/ok HTTP/1.1\r\nHost: x\r\n${TOKEN_HEADER}\r\n` +
        `POST /v1/test/echo/x HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n` +
        `GET /v1/test/echo/smuggled HTTP/1.1\r\nHost: x\r\n${TOKEN_HEADER}\r\n`,
    );
    expect(statusesOf(raw)).toEqual([200, 400]);
    expect(raw).toContain('{"errors":["both Content-Length and Transfer-Encoding"]}');
    expect(raw).not.toContain('smuggled');
  });

  it.each([
    ['duplicate Content-Length', 'Content-Length: 1\r\nContent-Length: 1\r\n\r\nx'],
    ['obsolete line folding is not allowed', 'X-A: 1\r\n folded\r\n\r\n'],
    ['bare LF in request head', 'X-A: 1\n\r\n'],
  ])('refuses %s', async (message, rest) => {
    const raw = await rawExchange(h.url, `POST /v1/test/echo/x HTTP/1.1\r\nHost: x\r\n${rest}`);
    expect(statusesOf(raw)).toEqual([400]);
    expect(raw).toContain(JSON.stringify({ errors: [message] }));
  });

  it('refuses a malformed chunk in the middle of a body and closes', async () => {
    const raw = await rawExchange(
      h.url,
      `POST /v1/test/echo/x HTTP/1.1\r\nHost: x\r\n${TOKEN_HEADER}Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n5\nhello\r\n0\r\n\r\n`,
    );
    expect(statusesOf(raw)).toEqual([400]);
    expect(raw).toContain('bare LF in chunk-size line');
  });

  it('survives random garbage and keeps serving', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 200 }), async (bytes) => {
        const raw = await rawExchange(h.url, Buffer.concat([Buffer.from(bytes), Buffer.from('\r\n\r\n')]), {
          timeoutMs: 5000,
        }).catch(() => '');
        // whatever came back is at most one HTTP response per request Node could frame, never a crash
        expect(raw === '' || raw.startsWith('HTTP/1.1 ')).toBe(true);
      }),
      { numRuns: 25 },
    );
    expect((await call(h, 'GET', '/v1/test/echo/alive')).status).toBe(200);
  });
});

describe('Node sees exactly the rewritten requests (differential)', () => {
  let server: Server;
  let port = 0;
  const seen: Array<{
    method: string;
    url: string;
    body: string;
    trailers: Record<string, string | undefined>;
  }> = [];

  beforeAll(async () => {
    server = createListRewriteServer((req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({
          method: req.method ?? '',
          url: req.url ?? '',
          body: Buffer.concat(chunks).toString('latin1'),
          trailers: { ...req.trailers },
        });
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const chars = (alphabet: string, max: number) =>
    fc.array(fc.constantFrom(...alphabet.split('')), { maxLength: max }).map((a) => a.join(''));
  const bytes = fc
    .array(
      fc.oneof(
        chars('abc\r\n{}"', 10),
        fc.constant('LIST /x HTTP/1.1\r\n\r\n'),
        fc.constant('\r\n0\r\n\r\n'),
      ),
      { maxLength: 4 },
    )
    .map((p) => Buffer.from(p.join(''), 'latin1'));
  const request: fc.Arbitrary<ModelRequest> = fc.record({
    preamble: fc.constant(false),
    method: fc.constantFrom('GET', 'LIST', 'POST', 'PUT', 'PATCH', 'DELETE'),
    path: chars('abcxyz019-._~/', 12).map((p) => `/v1/${p}`),
    query: fc.option(chars('abc=&+', 8), { nil: undefined }),
    version: fc.constant<'1.1'>('1.1'),
    // Node requires Host on HTTP/1.1 requests
    headers: fc
      .array(
        fc.tuple(
          chars('abc', 4).map((n) => `X-${n}`),
          chars('abc :;', 8).map((v) => v.trim()),
        ),
        { maxLength: 3 },
      )
      .map((headers): Array<[string, string]> => [['Host', 'x'], ...headers]),
    body: fc.oneof(
      fc.constant({ kind: 'none' as const }),
      bytes.map((data) => ({ kind: 'length' as const, data })),
      fc
        .record({
          chunks: fc.array(
            bytes.filter((b) => b.length > 0).map((data) => ({ data, extension: '' })),
            { maxLength: 3 },
          ),
          trailers: fc.constant([] as Array<[string, string]>),
        })
        .map((b) => ({ kind: 'chunked' as const, ...b })),
    ),
  });

  it('random pipelined requests arrive at Node exactly as rewritten', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(request, { minLength: 1, maxLength: 5 }),
        fc.array(fc.nat({ max: 2000 }), { maxLength: 6 }),
        async (requests, cuts) => {
          seen.length = 0;
          const data = Buffer.concat(requests.map((r) => serialise(r, false)));
          const socket = connect(port, '127.0.0.1');
          socket.on('data', () => undefined);
          socket.on('error', () => undefined);
          await new Promise((resolve) => socket.once('connect', resolve));
          let last = 0;
          for (const cut of [...new Set(cuts.map((c) => Math.min(c, data.length)))].sort((a, b) => a - b)) {
            socket.write(data.subarray(last, cut));
            last = cut;
          }
          socket.write(data.subarray(last));
          await waitFor(() => seen.length === requests.length, { timeoutMs: 2000 });
          socket.destroy();
          const expected = requests.map((r) => {
            const rewritten = serialise({ ...r, body: { kind: 'none' } }, true).toString('latin1');
            const [method = '', url = ''] = rewritten.split(' ');
            const body =
              r.body.kind === 'length'
                ? r.body.data
                : r.body.kind === 'chunked'
                  ? Buffer.concat(r.body.chunks.map((c) => c.data))
                  : Buffer.alloc(0);
            return { method, url, body: body.toString('latin1'), trailers: {} };
          });
          expect(seen).toEqual(expected);
        },
      ),
      { numRuns: 40 },
    );
  }, 20_000);
});

describe('LIST over TLS', () => {
  it('rewrites behind TLS as well', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-tls-'));
    try {
      await run('openssl', [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ]);
      const tls = { cert: readFileSync(join(dir, 'cert.pem')), key: readFileSync(join(dir, 'key.pem')) };
      const h = await startHarness({ listeners: { api: { address: '127.0.0.1:0', tls } } });
      try {
        expect(h.url).toMatch(/^https:\/\//);
        const common = [
          '-sS',
          '-k',
          '-H',
          'X-Service-Token: root-token',
          '-o',
          '/dev/null',
          '-w',
          '%{http_code} %{num_connects}\\n',
        ];
        const { stdout } = await run('curl', [
          ...common,
          '-X',
          'LIST',
          `${h.url}/v1/test/folder/a`,
          '--next',
          ...common,
          '-X',
          'LIST',
          `${h.url}/v1/test/folder/b`,
        ]);
        expect(stdout.trim().split('\n')).toEqual(['200 1', '200 0']);
      } finally {
        await h.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
