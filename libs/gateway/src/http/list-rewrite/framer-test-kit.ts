import { RequestFramer, type FramerLimits, type FramingError } from './request-framer';

/**
 * Shared by the framer's unit, fuzz and integration specs: a small model of HTTP/1.1 requests
 * that serialises to exact bytes, before and after the LIST rewrite.
 */
export interface ModelRequest {
  preamble: boolean; // an empty line before the request line (allowed by RFC 9112 §2.2)
  method: string;
  path: string;
  query: string | undefined;
  version: '1.0' | '1.1';
  headers: Array<[string, string]>;
  body: ModelBody;
}

export type ModelBody =
  | { kind: 'none' }
  | { kind: 'length'; data: Buffer }
  | {
      kind: 'chunked';
      chunks: Array<{ data: Buffer; extension: string }>;
      trailers: Array<[string, string]>;
    };

export function serialise(req: ModelRequest, rewritten: boolean): Buffer {
  const list = rewritten && req.method === 'LIST';
  const method = list ? 'GET' : req.method;
  let target = req.path;
  if (list) target += req.query === undefined || req.query === '' ? '?list=true' : `?list=true&${req.query}`;
  else if (req.query !== undefined) target += `?${req.query}`;
  const parts: Buffer[] = [];
  let head = `${req.preamble ? '\r\n' : ''}${method} ${target} HTTP/${req.version}\r\n`;
  for (const [name, value] of req.headers) head += `${name}: ${value}\r\n`;
  if (req.body.kind === 'length') head += `Content-Length: ${req.body.data.length}\r\n`;
  if (req.body.kind === 'chunked') head += 'Transfer-Encoding: chunked\r\n';
  parts.push(Buffer.from(`${head}\r\n`, 'latin1'));
  if (req.body.kind === 'length') parts.push(req.body.data);
  if (req.body.kind === 'chunked') {
    for (const chunk of req.body.chunks) {
      parts.push(Buffer.from(`${chunk.data.length.toString(16)}${chunk.extension}\r\n`, 'latin1'));
      parts.push(chunk.data, Buffer.from('\r\n'));
    }
    let trailer = '0\r\n';
    for (const [name, value] of req.body.trailers) trailer += `${name}: ${value}\r\n`;
    parts.push(Buffer.from(`${trailer}\r\n`, 'latin1'));
  }
  return Buffer.concat(parts);
}

export interface FeedOutcome {
  out: Buffer;
  error: FramingError | undefined;
  requests: number;
}

/** Feeds the pieces in order, stopping at the first refusal like the socket wrapper does. */
export function feedPieces(pieces: Buffer[], limits?: FramerLimits): FeedOutcome {
  const framer = new RequestFramer(limits);
  const out: Buffer[] = [];
  for (const piece of pieces) {
    const result = framer.feed(piece);
    out.push(...result.out);
    if (result.error) return { out: Buffer.concat(out), error: result.error, requests: framer.requests };
  }
  return { out: Buffer.concat(out), error: undefined, requests: framer.requests };
}

/** Splits `data` at the given (sorted, de-duplicated) cut points. */
export function splitAt(data: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => Math.max(0, Math.min(data.length, c))))].sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let last = 0;
  for (const p of points) {
    if (p > last) pieces.push(data.subarray(last, p));
    last = p;
  }
  if (last < data.length) pieces.push(data.subarray(last));
  return pieces;
}

export function byteByByte(data: Buffer): Buffer[] {
  const pieces: Buffer[] = [];
  for (let i = 0; i < data.length; i++) pieces.push(data.subarray(i, i + 1));
  return pieces;
}
