import http from 'node:http';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** parsed JSON body, or undefined */
  json: any;
  /** whether the request went over a socket that an earlier request had used (keep-alive) */
  reusedSocket: boolean;
}

export interface RawRequestOptions {
  method: string;
  /** sent exactly as given: no URL normalisation of "..", "." or "//" (fetch would resolve them) */
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** send the body with Transfer-Encoding: chunked, in pieces of this size */
  chunkSize?: number;
  /**
   * Announce this Content-Length but send only `body` and wait for the answer (then drop the
   * connection): how a client meets a server that refuses an oversized body from its headers,
   * without racing a reset against a large upload.
   */
  declaredLength?: number;
  agent?: http.Agent;
}

/**
 * One HTTP request through node:http with the path verbatim. Resolves on the response even if the
 * server answered before reading the whole body (e.g. 413) and the upload then failed.
 */
export function rawRequest(baseUrl: string, opts: RawRequestOptions): Promise<RawResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.declaredLength !== undefined) headers['content-length'] = String(opts.declaredLength);
    else if (opts.body !== undefined && opts.chunkSize === undefined) {
      headers['content-length'] = String(Buffer.byteLength(opts.body));
    }
    const req = http.request({
      host: url.hostname,
      port: url.port,
      method: opts.method,
      path: opts.path,
      headers,
      agent: opts.agent ?? false,
    });
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = text === '' ? undefined : JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text,
          json,
          reusedSocket: req.reusedSocket,
        });
      });
      res.on('error', reject);
    });
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    if (opts.body === undefined) {
      req.end();
      return;
    }
    const body = Buffer.isBuffer(opts.body) ? opts.body : Buffer.from(opts.body);
    if (opts.declaredLength !== undefined) {
      req.write(body);
      return;
    }
    if (opts.chunkSize === undefined) {
      req.end(body);
      return;
    }
    for (let i = 0; i < body.length; i += opts.chunkSize) req.write(body.subarray(i, i + opts.chunkSize));
    req.end();
  });
}
