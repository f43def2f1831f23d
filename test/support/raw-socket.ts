import { connect } from 'node:net';

/**
 * Writes `data` on one fresh TCP connection, in one write (pipelining, several requests per
 * segment), and resolves with every byte received until the server closes the connection.
 */
export function socketExchange(baseUrl: string, data: string | Buffer, timeoutMs = 15_000): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(data));
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no close within ${timeoutMs} ms; got ${Buffer.concat(chunks).toString('latin1')}`));
    }, timeoutMs);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
  });
}

/** Status codes of the responses in a raw HTTP/1.1 byte stream, in order. */
export function responseStatuses(raw: string): number[] {
  return [...raw.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
}

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
