import { rawExchange } from '@coffer/testing';

/** Every byte the server sends back for `data` on one connection (see rawExchange), as UTF-8. */
export const socketExchange = (baseUrl: string, data: string | Buffer, timeoutMs = 15_000): Promise<string> =>
  rawExchange(baseUrl, data, { timeoutMs, encoding: 'utf8' });

export { statusesOf as responseStatuses } from '@coffer/testing';

/** A request with a Content-Length body, as bytes on the wire. */
export function wireRequest(
  method: string,
  path: string,
  headers: Record<string, string>,
  body = '',
): string {
  const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`);
  const length = body === '' && method === 'GET' ? '' : `Content-Length: ${Buffer.byteLength(body)}\r\n`;
  return `${method} ${path} HTTP/1.1\r\nHost: coffer\r\n${lines.join('')}${length}\r\n${body}`;
}
