import { byteByByte, feedPieces, serialise, splitAt, type ModelRequest } from './framer-test-kit';
import { RequestFramer, rewriteListTarget } from './request-framer';

const req = (over: Partial<ModelRequest>): ModelRequest => ({
  preamble: false,
  method: 'GET',
  path: '/v1/secret/foo',
  query: undefined,
  version: '1.1',
  headers: [['Host', 'example']],
  body: { kind: 'none' },
  ...over,
});

const raw = (s: string): Buffer => Buffer.from(s, 'latin1');

/** Checks the output for one whole chunk, byte-by-byte and at every single split point. */
function expectSame(input: Buffer, expected: Buffer): void {
  expect(feedPieces([input]).out.toString('latin1')).toBe(expected.toString('latin1'));
  const bytewise = feedPieces(byteByByte(input));
  expect(bytewise.error).toBeUndefined();
  expect(bytewise.out.toString('latin1')).toBe(expected.toString('latin1'));
  for (let cut = 1; cut < input.length; cut++) {
    expect(feedPieces(splitAt(input, [cut])).out.equals(expected)).toBe(true);
  }
}

function expectRefused(input: Buffer, message: string, atBoundary = true, status = 400): Buffer {
  const whole = feedPieces([input]);
  expect(whole.error?.message).toBe(message);
  expect(whole.error?.atBoundary).toBe(atBoundary);
  expect(whole.error?.status).toBe(status);
  const bytewise = feedPieces(byteByByte(input));
  expect(bytewise.error?.message).toBe(message);
  expect(bytewise.out.equals(whole.out)).toBe(true);
  return whole.out;
}

describe('rewriteListTarget', () => {
  it.each([
    ['/v1/secret', '/v1/secret?list=true'],
    ['/v1/secret/', '/v1/secret/?list=true'],
    ['/v1/secret?', '/v1/secret?list=true'],
    ['/v1/secret?a=1&b', '/v1/secret?list=true&a=1&b'],
    ['/v1/secret?list=false', '/v1/secret?list=true&list=false'],
    ['/v1/secret#frag', '/v1/secret?list=true#frag'],
    ['/v1/s?x=1#f', '/v1/s?list=true&x=1#f'],
  ])('%s -> %s', (target, expected) => {
    expect(rewriteListTarget(target)).toBe(expected);
  });
});

describe('RequestFramer', () => {
  it('passes a plain request through unchanged and without copying', () => {
    const input = serialise(req({}), false);
    const framer = new RequestFramer();
    const result = framer.feed(input);
    expect(result.out).toHaveLength(1);
    expect(result.out[0]?.buffer).toBe(input.buffer);
    expect(framer.requests).toBe(1);
    expect(framer.atBoundary).toBe(true);
  });

  it('rewrites LIST to GET with list=true', () => {
    for (const query of [undefined, '', 'a=1', 'list=false&x']) {
      const r = req({ method: 'LIST', query });
      expectSame(serialise(r, false), serialise(r, true));
    }
  });

  it('rewrites LIST in HTTP/1.0 and keeps empty lines before the request line', () => {
    const r = req({ method: 'LIST', version: '1.0', preamble: true });
    expectSame(serialise(r, false), serialise(r, true));
  });

  it('keeps request boundaries with a Content-Length body that looks like a LIST request', () => {
    const decoy = raw('LIST /v1/x HTTP/1.1\r\nHost: a\r\n\r\n');
    const list = [
      req({ method: 'POST', body: { kind: 'length', data: decoy } }),
      req({ method: 'LIST', path: '/v1/after' }),
    ];
    const input = Buffer.concat(list.map((r) => serialise(r, false)));
    const expected = Buffer.concat(list.map((r) => serialise(r, true)));
    expectSame(input, expected);
    expect(expected.toString('latin1')).toContain('LIST /v1/x HTTP/1.1');
  });

  it('handles LIST after a chunked POST with extensions and trailers on one connection', () => {
    const list = [
      req({
        method: 'POST',
        body: {
          kind: 'chunked',
          chunks: [
            { data: raw('LIST / HTTP/1.1\r\n\r\n'), extension: ';name=value' },
            { data: raw('0\r\n\r\n'), extension: '' },
          ],
          trailers: [['X-Checksum', 'abc']],
        },
      }),
      req({ method: 'LIST', path: '/v1/secret/metadata/' }),
      req({ method: 'DELETE' }),
      req({ method: 'LIST', query: 'a=b' }),
    ];
    expectSame(
      Buffer.concat(list.map((r) => serialise(r, false))),
      Buffer.concat(list.map((r) => serialise(r, true))),
    );
    expect(feedPieces([Buffer.concat(list.map((r) => serialise(r, false)))]).requests).toBe(4);
  });

  it('handles pipelined requests in one chunk', () => {
    const list = [
      req({ method: 'LIST' }),
      req({ method: 'PUT', body: { kind: 'length', data: raw('{"a":1}') } }),
      req({ method: 'LIST', path: '/v1/b' }),
      req({ method: 'GET', body: { kind: 'length', data: Buffer.alloc(0) } }),
      req({ method: 'LIST', path: '/v1/c' }),
    ];
    const framer = new RequestFramer();
    const result = framer.feed(Buffer.concat(list.map((r) => serialise(r, false))));
    expect(Buffer.concat(result.out).equals(Buffer.concat(list.map((r) => serialise(r, true))))).toBe(true);
    expect(framer.requests).toBe(5);
  });

  it('drops Upgrade fields and keeps framing the connection (LIST still rewritten after)', () => {
    const first = req({
      method: 'LIST',
      headers: [
        ['Connection', 'Upgrade'],
        ['Upgrade', 'h2c'],
        ['Host', 'example'],
      ],
    });
    const input = Buffer.concat([serialise(first, false), raw('LIST /v1/x HTTP/1.1\r\n\r\n')]);
    const expected = raw(
      'GET /v1/secret/foo?list=true HTTP/1.1\r\nConnection: Upgrade\r\nHost: example\r\n\r\n' +
        'GET /v1/x?list=true HTTP/1.1\r\n\r\n',
    );
    expectSame(input, expected);
    const plain = raw('GET / HTTP/1.1\r\nupgrade: websocket\r\n\r\n');
    expectSame(plain, raw('GET / HTTP/1.1\r\n\r\n'));
  });

  it('refuses more than 1000 header fields with 431 instead of dropping the rest', () => {
    const fields = (n: number) => Array.from({ length: n }, (_, i) => `h${i}: v\r\n`).join('');
    const ok = raw(`GET / HTTP/1.1\r\n${fields(1000)}\r\n`);
    expect(feedPieces([ok]).out.equals(ok)).toBe(true);
    const tooMany = raw(`GET / HTTP/1.1\r\n${fields(1000)}x-vault-token: t\r\n\r\n`);
    const whole = feedPieces([tooMany]);
    expect(whole.error?.status).toBe(431);
    expect(whole.error?.atBoundary).toBe(true);
    expect(whole.out).toHaveLength(0);
  });

  describe('refuses ambiguous framing at the request boundary', () => {
    const head = (lines: string): Buffer => raw(`POST /v1/x HTTP/1.1\r\nHost: a\r\n${lines}\r\n`);
    it.each([
      ['Content-Length: 5\r\nTransfer-Encoding: chunked\r\n', 'both Content-Length and Transfer-Encoding'],
      ['Transfer-Encoding: chunked\r\nContent-Length: 5\r\n', 'both Content-Length and Transfer-Encoding'],
      ['Content-Length: 5\r\nContent-Length: 5\r\n', 'duplicate Content-Length'],
      ['Content-Length: 5, 5\r\n', 'invalid Content-Length'],
      ['Content-Length: +5\r\n', 'invalid Content-Length'],
      ['Content-Length: -1\r\n', 'invalid Content-Length'],
      ['Content-Length: 0x5\r\n', 'invalid Content-Length'],
      ['Content-Length: \r\n', 'invalid Content-Length'],
      ['Content-Length: 1234567890123456\r\n', 'invalid Content-Length'],
      ['Transfer-Encoding: gzip, chunked\r\n', 'unsupported Transfer-Encoding'],
      ['Transfer-Encoding: chunked, gzip\r\n', 'unsupported Transfer-Encoding'],
      ['Transfer-Encoding: identity\r\n', 'unsupported Transfer-Encoding'],
      ['Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n', 'duplicate Transfer-Encoding'],
      ['X-A: 1\r\n folded\r\n', 'obsolete line folding is not allowed'],
      ['X-A: 1\r\n\tfolded\r\n', 'obsolete line folding is not allowed'],
      ['Content-Length : 5\r\n', 'invalid header field'],
      [' Content-Length: 5\r\n', 'obsolete line folding is not allowed'],
      ['X-A: a\x00b\r\n', 'invalid header field'],
      ['X-A: a\x01b\r\n', 'invalid header field'],
      ['no colon\r\n', 'invalid header field'],
      [': empty name\r\n', 'invalid header field'],
    ])('%j', (lines, message) => {
      expectRefused(head(lines), message);
    });

    it.each([
      ['GET /v1/x HTTP/1.1\nHost: a\r\n\r\n', 'bare LF in request head'],
      ['GET /v1/x HTTP/1.1\r\nHost: a\n\r\n', 'bare LF in request head'],
      ['GET /v1/x HTTP/1.1\r\nHost: a\r\n\n', 'bare LF in request head'],
      ['GET /v1/x HTTP/1.1\r\nHost: a\rb\r\n\r\n', 'bare CR in request head'],
      ['\nGET /v1/x HTTP/1.1\r\n\r\n', 'bare LF in request head'],
      ['GET  /v1/x HTTP/1.1\r\n\r\n', 'invalid request line'],
      ['GET /v1/x HTTP/2.0\r\n\r\n', 'invalid request line'],
      ['GET /v1/x\r\n\r\n', 'invalid request line'],
      ['GET /v1/\x7fx HTTP/1.1\r\n\r\n', 'invalid request line'],
      ['G(T /v1/x HTTP/1.1\r\n\r\n', 'invalid request line'],
      ['CONNECT example:443 HTTP/1.1\r\n\r\n', 'CONNECT is not supported'],
      [
        'POST /v1/x HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n',
        'Transfer-Encoding in an HTTP/1.0 request',
      ],
    ])('%j', (input, message) => {
      expectRefused(raw(input), message);
    });

    it('answers 431 for an oversized head', () => {
      const input = raw(`GET /v1/x HTTP/1.1\r\nX-Big: ${'a'.repeat(200)}\r\n\r\n`);
      const limits = { maxHeadBytes: 100, maxChunkLineBytes: 100, maxTrailerBytes: 100 };
      expect(feedPieces([input], limits).error?.status).toBe(431);
      expect(feedPieces(byteByByte(input), limits).error?.status).toBe(431);
    });

    it('forwards the complete requests before the refused head and nothing of it', () => {
      const good = [
        req({ method: 'LIST' }),
        req({ method: 'POST', body: { kind: 'length', data: raw('xyz') } }),
      ];
      const prefix = Buffer.concat(good.map((r) => serialise(r, true)));
      const input = Buffer.concat([
        ...good.map((r) => serialise(r, false)),
        head('Content-Length: 1\r\nContent-Length: 1\r\n'),
      ]);
      const out = expectRefused(input, 'duplicate Content-Length');
      expect(out.equals(prefix)).toBe(true);
      expect(feedPieces([input]).requests).toBe(2);
    });
  });

  describe('refuses malformed chunked bodies', () => {
    const chunked = (body: string): Buffer =>
      Buffer.concat([raw('POST /v1/x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n'), raw(body)]);
    it.each([
      ['x\r\n', 'invalid chunk size'],
      ['5 \r\nhello\r\n0\r\n\r\n', 'invalid chunk size'],
      [' 5\r\nhello\r\n0\r\n\r\n', 'invalid chunk size'],
      [';ext\r\n', 'invalid chunk size'],
      ['\r\n', 'invalid chunk size'],
      ['5\nhello\r\n0\r\n\r\n', 'bare LF in chunk-size line'],
      ['5;a\nb\r\nhello\r\n0\r\n\r\n', 'bare LF in chunk-size line'],
      ['5\rhello\r\n0\r\n\r\n', 'bare CR in chunk-size line'],
      ['5;a\x00\r\nhello\r\n0\r\n\r\n', 'invalid chunk extension'],
      ['5\r\nhelloX\r\n0\r\n\r\n', 'invalid chunk terminator'],
      ['5\r\nhello\rX0\r\n\r\n', 'invalid chunk terminator'],
      ['5\r\nhello\n0\r\n\r\n', 'invalid chunk terminator'],
      ['fffffffffffffffff\r\n', 'chunk size too large'],
      ['0\r\nX-A: 1\n\r\n', 'bare LF in trailer section'],
      ['0\r\nX-A: 1\r\n folded\r\n\r\n', 'obsolete line folding is not allowed'],
      ['0\r\nX A: 1\r\n\r\n', 'invalid trailer field'],
      ['0\r\nnocolon\r\n\r\n', 'invalid trailer field'],
      ['0\r\n: v\r\n\r\n', 'invalid trailer field'],
      ['0\r\nX-A: \x01\r\n\r\n', 'invalid trailer field'],
      ['0\r\n\n', 'bare LF in trailer section'],
    ])('%j', (body, message) => {
      expectRefused(chunked(body), message, false);
    });

    it('limits the chunk-size line and the trailer section', () => {
      const limits = { maxHeadBytes: 1000, maxChunkLineBytes: 16, maxTrailerBytes: 16 };
      expect(feedPieces([chunked(`5;${'a'.repeat(40)}\r\n`)], limits).error?.message).toBe(
        'chunk-size line too long',
      );
      expect(feedPieces([chunked(`0\r\nX-A: ${'a'.repeat(40)}\r\n\r\n`)], limits).error?.message).toBe(
        'trailer section too large',
      );
    });

    it('accepts upper-case hex sizes and leading zeros', () => {
      const input = chunked('000A\r\n0123456789\r\n00\r\n\r\n');
      expectSame(input, input);
    });
  });

  it('keeps refusing after a refusal', () => {
    const framer = new RequestFramer();
    expect(framer.feed(raw('GET /x HTTP/1.1\n\n')).error).toBeDefined();
    expect(framer.feed(raw('GET /x HTTP/1.1\r\n\r\n')).error).toBeDefined();
  });
});
