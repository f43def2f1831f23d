import fc from 'fast-check';
import { feedPieces, serialise, splitAt, type ModelBody, type ModelRequest } from './framer-test-kit';

const chars = (alphabet: string, min: number, max: number): fc.Arbitrary<string> =>
  fc.array(fc.constantFrom(...alphabet.split('')), { minLength: min, maxLength: max }).map((a) => a.join(''));

/** Bytes that look like framing: decoys inside bodies must never be taken for request boundaries. */
const DECOYS = [
  'LIST /v1/x HTTP/1.1\r\n\r\n',
  '\r\n0\r\n\r\n',
  'Content-Length: 3\r\n',
  'Transfer-Encoding: chunked\r\n\r\n',
  '\r\n\r\n',
  '\n',
  '\r',
];

const bodyBytes: fc.Arbitrary<Buffer> = fc
  .array(
    fc.oneof(
      fc.uint8Array({ maxLength: 24 }).map((a) => Buffer.from(a)),
      fc.constantFrom(...DECOYS).map((d) => Buffer.from(d)),
    ),
    {
      maxLength: 5,
    },
  )
  .map((parts) => Buffer.concat(parts));

const extension = fc.oneof(
  fc.constant(''),
  chars('abc=;"\t xyz', 1, 12).map((s) => `;${s}`),
);

const header: fc.Arbitrary<[string, string]> = fc.tuple(
  chars('abcdefXYZ-_!~', 1, 10).map((n) => `X-${n}`),
  chars('abc XYZ:/;,\t=0123456789"', 0, 20).map((v) => v.trim()),
);

const body: fc.Arbitrary<ModelBody> = fc.oneof(
  fc.constant<ModelBody>({ kind: 'none' }),
  bodyBytes.map<ModelBody>((data) => ({ kind: 'length', data })),
  fc
    .record({
      chunks: fc.array(fc.record({ data: bodyBytes.filter((b) => b.length > 0), extension }), {
        maxLength: 4,
      }),
      trailers: fc.array(header, { maxLength: 2 }),
    })
    .map<ModelBody>(({ chunks, trailers }) => ({ kind: 'chunked', chunks, trailers })),
);

const request: fc.Arbitrary<ModelRequest> = fc
  .record({
    preamble: fc.boolean(),
    method: fc.constantFrom('GET', 'LIST', 'LIST', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'),
    path: chars('abcxyz019-._~%/', 0, 20).map((p) => `/v1/${p}`),
    query: fc.option(chars('abc=&%+list', 0, 12), { nil: undefined }),
    version: fc.constantFrom<'1.0' | '1.1'>('1.0', '1.1', '1.1'),
    headers: fc.array(header, { maxLength: 4 }),
    body,
  })
  .map((r) => (r.version === '1.0' && r.body.kind === 'chunked' ? { ...r, version: '1.1' as const } : r));

const cuts = (max: number): fc.Arbitrary<number[]> => fc.array(fc.nat({ max }), { maxLength: 12 });

describe('RequestFramer fuzz', () => {
  it('random valid requests split at random points come out exactly as rewritten', () => {
    fc.assert(
      fc.property(fc.array(request, { minLength: 1, maxLength: 6 }), cuts(4000), (requests, points) => {
        const input = Buffer.concat(requests.map((r) => serialise(r, false)));
        const expected = Buffer.concat(requests.map((r) => serialise(r, true)));
        const result = feedPieces(splitAt(input, points));
        expect(result.error).toBeUndefined();
        expect(result.requests).toBe(requests.length);
        expect(result.out.equals(expected)).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it('random garbage never throws and gives the same outcome however it is split', () => {
    const garbage = fc.oneof(
      fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
      fc
        .array(
          fc.oneof(
            fc.constantFrom(...DECOYS, 'GET / HTTP/1.1\r\n', 'LIST ', ' HTTP/1.1', 'X: y\r\n', '5\r\n'),
            chars('ab \t:;\r\n', 0, 6),
          ),
          {
            maxLength: 30,
          },
        )
        .map((parts) => Buffer.from(parts.join(''), 'latin1')),
    );
    fc.assert(
      fc.property(garbage, cuts(300), (input, points) => {
        const whole = feedPieces([input]);
        const split = feedPieces(splitAt(input, points));
        expect(split.out.equals(whole.out)).toBe(true);
        expect(split.error?.message).toBe(whole.error?.message);
        expect(split.requests).toBe(whole.requests);
      }),
      { numRuns: 500 },
    );
  });

  it('garbage after valid requests never disturbs them (no desynchronisation)', () => {
    fc.assert(
      fc.property(
        fc.array(request, { minLength: 1, maxLength: 4 }),
        fc.uint8Array({ minLength: 1, maxLength: 200 }).map((a) => Buffer.from(a)),
        cuts(3000),
        (requests, garbage, points) => {
          const valid = Buffer.concat(requests.map((r) => serialise(r, false)));
          const expected = Buffer.concat(requests.map((r) => serialise(r, true)));
          const result = feedPieces(splitAt(Buffer.concat([valid, garbage]), points));
          // Output is the rewritten valid requests, then a prefix of unchanged garbage at most:
          // garbage is either refused or framed as a request whose line is not LIST.
          expect(result.out.subarray(0, expected.length).equals(expected)).toBe(true);
          expect(result.requests).toBeGreaterThanOrEqual(requests.length);
          if (result.out.length > expected.length) {
            const rest = result.out.subarray(expected.length);
            const list = garbage.toString('latin1').includes('LIST ');
            if (!list) expect(garbage.subarray(0, rest.length).equals(rest)).toBe(true);
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('a refused stream forwards only whole requests before a refused head', () => {
    fc.assert(
      fc.property(
        fc.array(request, { minLength: 0, maxLength: 3 }),
        fc.constantFrom(
          'POST /x HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n',
          'POST /x HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n',
          'GET /x HTTP/1.1\r\nX: a\n\r\n',
          'GET /x HTTP/1.1\r\nX: a\r\n b\r\n\r\n',
        ),
        cuts(2000),
        (requests, bad, points) => {
          const valid = Buffer.concat(requests.map((r) => serialise(r, false)));
          const expected = Buffer.concat(requests.map((r) => serialise(r, true)));
          const result = feedPieces(splitAt(Buffer.concat([valid, Buffer.from(bad, 'latin1')]), points));
          expect(result.error?.atBoundary).toBe(true);
          expect(result.out.equals(expected)).toBe(true);
          expect(result.requests).toBe(requests.length);
        },
      ),
      { numRuns: 200 },
    );
  });
});
