/** HTTP/1.1 message syntax used by the request framer (RFC 9110 / 9112). */

/** tchar (RFC 9110 §5.6.2) */
export const TOKEN_RE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// eslint-disable-next-line no-control-regex -- control characters are what a request target must not contain
export const REQUEST_LINE_RE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) ([^\x00-\x20\x7f]+) HTTP\/1\.([01])$/;
export const FIELD_LINE_RE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):([\t\x20-\x7e\x80-\xff]*)$/;
export const DIGITS_RE = /^[0-9]{1,15}$/;
export const OWS_RE = /^[\t ]+|[\t ]+$/g;

/**
 * LIST /p?q -> GET /p?list=true&q. `list=true` goes first so it wins over a `list` parameter the
 * client sent (the gateway reads the first value, like Go's url.Values.Get).
 */
export function rewriteListTarget(target: string): string {
  const hash = target.indexOf('#');
  const base = hash < 0 ? target : target.slice(0, hash);
  const fragment = hash < 0 ? '' : target.slice(hash);
  const q = base.indexOf('?');
  if (q < 0) return `${base}?list=true${fragment}`;
  const query = base.slice(q + 1);
  return `${base.slice(0, q)}?list=true${query === '' ? '' : `&${query}`}${fragment}`;
}

export function hexValue(b: number): number {
  if (b >= 48 && b <= 57) return b - 48;
  if (b >= 65 && b <= 70) return b - 55;
  if (b >= 97 && b <= 102) return b - 87;
  return -1;
}

const TOKEN_BYTES = new Uint8Array(256);
for (let b = 0; b < 256; b++) TOKEN_BYTES[b] = TOKEN_RE.test(String.fromCharCode(b)) ? 1 : 0;

export function isTokenByte(b: number): boolean {
  return TOKEN_BYTES[b] === 1;
}
