import { connect } from 'node:net';

export interface RawExchangeOptions {
  /** fail when the server has not closed the connection by then; default 5 s */
  timeoutMs?: number;
  /** how the received bytes are decoded; latin1 keeps every byte as one character */
  encoding?: BufferEncoding;
}

/**
 * Writes `data` on one fresh TCP connection, in one write (pipelining, several requests per
 * segment), and resolves with every byte received until the server closes the connection.
 */
export function rawExchange(
  url: string,
  data: string | Buffer,
  opts: RawExchangeOptions = {},
): Promise<string> {
  const { timeoutMs = 5000, encoding = 'latin1' } = opts;
  const { hostname, port } = new URL(url);
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
      resolve(Buffer.concat(chunks).toString(encoding));
    });
  });
}

/** Status codes of the responses in a raw HTTP/1.1 byte stream, in order. */
export function statusesOf(raw: string): number[] {
  return [...raw.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
}
