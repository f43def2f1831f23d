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
  /** indexes (in the head's lines, request line = 0) of Upgrade fields, dropped before Node sees them */
  upgradeLines: number[];
}

/** Go's net/http has no limit on the number of fields; Node silently drops those after the 1000th. */
export const DEFAULT_MAX_HEADER_FIELDS = 1000;

const refuse = (message: string): FramingError => new FramingError(message, 400, true);

/**
 * Validates a complete request head (request line, header fields, final blank line; CR/LF already
 * checked by the scanner) and reads its framing. Throws FramingError for anything with more than
 * one reading.
 */
export function analyseHead(text: string, maxHeaderFields = DEFAULT_MAX_HEADER_FIELDS): HeadInfo {
  let p = 0;
  while (text.charCodeAt(p) === CR) p += 2; // empty lines before the request line (RFC 9112 §2.2)
  const lines = text.slice(p, text.length - 4).split('\r\n');
  // a field dropped silently (a token as field 1 001) is worse than a refusal
  if (lines.length - 1 > maxHeaderFields) {
    throw new FramingError(`too many header fields (more than ${maxHeaderFields})`, 431, true);
  }
  const requestLine = lines[0] ?? '';
  const m = REQUEST_LINE_RE.exec(requestLine);
  if (!m) throw refuse('invalid request line');
  const method = m[1] ?? '';
  if (method === 'CONNECT') throw refuse('CONNECT is not supported');

  let contentLength = -1;
  let chunked = false;
  let transferEncoding = false;
  const upgradeLines: number[] = [];
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
      upgradeLines.push(k);
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
    upgradeLines,
  };
}

/** Whether Node must see another head than the one sent (LIST, or an Upgrade field). */
export const needsRewrite = (info: HeadInfo): boolean =>
  info.method === 'LIST' || info.upgradeLines.length > 0;

/**
 * The head with its LIST request line turned into GET ?list=true and its Upgrade fields dropped;
 * every other byte unchanged. No route upgrades the protocol (Vault has none on /v1 either), and
 * a head Node took for an upgrade would end HTTP parsing on the connection; without the field the
 * request is answered like any other and the connection stays HTTP.
 */
export function rewriteHead(text: string, info: HeadInfo): string {
  const prefix = text.slice(0, info.preambleLength);
  const requestLine =
    info.method === 'LIST'
      ? `GET ${rewriteListTarget(info.target)} HTTP/1.${info.minorVersion}`
      : info.requestLine;
  if (info.upgradeLines.length === 0) {
    return prefix + requestLine + text.slice(info.preambleLength + info.requestLine.length);
  }
  const lines = text.slice(info.preambleLength, text.length - 4).split('\r\n');
  const kept = lines.filter((_, k) => k > 0 && !info.upgradeLines.includes(k));
  return `${prefix}${[requestLine, ...kept].join('\r\n')}\r\n\r\n`;
}
