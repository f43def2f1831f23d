import { FramingError } from './framing-error';
import { DIGITS_RE, FIELD_LINE_RE, OWS_RE, REQUEST_LINE_RE, rewriteListTarget } from './http-syntax';

const CR = 13;
const SP = 32;
const HTAB = 9;

export interface HeadInfo {
  method: string;
  target: string;
  /** "0" or "1" (HTTP/1.x) */
  minorVersion: string;
  /** length of the empty lines before the request line */
  preambleLength: number;
  requestLine: string;
  /** -1 when absent */
  contentLength: number;
  chunked: boolean;
  upgrade: boolean;
}

const refuse = (message: string): FramingError => new FramingError(message, 400, true);

/**
 * Validates a complete request head (request line, header fields, final blank line; CR/LF already
 * checked by the scanner) and reads its framing. Throws FramingError for anything with more than
 * one reading.
 */
export function analyseHead(text: string): HeadInfo {
  let p = 0;
  while (text.charCodeAt(p) === CR) p += 2; // empty lines before the request line (RFC 9112 §2.2)
  const lines = text.slice(p, text.length - 4).split('\r\n');
  const requestLine = lines[0] ?? '';
  const m = REQUEST_LINE_RE.exec(requestLine);
  if (!m) throw refuse('invalid request line');
  const method = m[1] ?? '';
  if (method === 'CONNECT') throw refuse('CONNECT is not supported');

  let contentLength = -1;
  let chunked = false;
  let transferEncoding = false;
  let upgrade = false;
  for (let k = 1; k < lines.length; k++) {
    const line = lines[k] ?? '';
    const first = line.charCodeAt(0);
    if (first === SP || first === HTAB) throw refuse('obsolete line folding is not allowed');
    const f = FIELD_LINE_RE.exec(line);
    if (!f) throw refuse('invalid header field');
    const name = f[1] ?? '';
    if (name.length === 14 && name.toLowerCase() === 'content-length') {
      if (contentLength >= 0) throw refuse('duplicate Content-Length');
      const value = (f[2] ?? '').replace(OWS_RE, '');
      if (!DIGITS_RE.test(value)) throw refuse('invalid Content-Length');
      contentLength = Number(value);
    } else if (name.length === 17 && name.toLowerCase() === 'transfer-encoding') {
      if (transferEncoding) throw refuse('duplicate Transfer-Encoding');
      transferEncoding = true;
      chunked = (f[2] ?? '').replace(OWS_RE, '').toLowerCase() === 'chunked';
      if (!chunked) throw refuse('unsupported Transfer-Encoding');
    } else if (name.length === 7 && name.toLowerCase() === 'upgrade') {
      upgrade = true;
    }
  }
  if (transferEncoding && contentLength >= 0) throw refuse('both Content-Length and Transfer-Encoding');
  const minorVersion = m[3] ?? '1';
  if (transferEncoding && minorVersion === '0') throw refuse('Transfer-Encoding in an HTTP/1.0 request');
  return {
    method,
    target: m[2] ?? '',
    minorVersion,
    preambleLength: p,
    requestLine,
    contentLength,
    chunked,
    upgrade,
  };
}

/** The head with its LIST request line turned into GET ?list=true; every other byte unchanged. */
export function rewriteListHead(text: string, info: HeadInfo): string {
  const prefix = text.slice(0, info.preambleLength);
  const rest = text.slice(info.preambleLength + info.requestLine.length);
  return `${prefix}GET ${rewriteListTarget(info.target)} HTTP/1.${info.minorVersion}${rest}`;
}
