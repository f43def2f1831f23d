import http from 'node:http';
import https from 'node:https';
import { ApiError, ConnectionError } from './cli-errors';
import { isObject, type JsonObject } from './cli-format';

export interface HttpSettings {
  address: string;
  token: string | undefined;
  namespace: string | undefined;
  wrapTtl: string | undefined;
  policyOverride: boolean;
  /** PEM text of the CA bundle to trust (-ca-cert) */
  ca: string | undefined;
  tlsSkipVerify: boolean;
  /** print the equivalent curl command instead of sending (-output-curl-string) */
  outputCurlString: boolean;
}

export interface RequestOptions {
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined>;
  /** another token for this request; null sends none */
  token?: string | null;
  headers?: Record<string, string>;
  /** return 404 answers instead of throwing (reads print "No value found") */
  allowNotFound?: boolean;
  /** no wrap header even if -wrap-ttl is set (token lookups made by the CLI itself) */
  noWrap?: boolean;
}

export interface HttpResult {
  status: number;
  /** the parsed JSON body; undefined for 204 or a non-JSON body */
  body: JsonObject | undefined;
  text: string;
}

/** Thrown instead of sending when -output-curl-string is set; main prints it and exits 0. */
export class CurlPrinted extends Error {
  override name = 'CurlPrinted';
  constructor(readonly command: string) {
    super(command);
  }
}

/** How the CLI waits: a spinner after ~300 ms on a terminal (see cli-ui.ts). */
export type WaitHook = <T>(label: string, work: Promise<T>) => Promise<T>;

const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** An ordinary client of the HTTP API: the X-Service-* headers, JSON bodies, Vault's error lists. */
export class CofferHttp {
  constructor(
    readonly settings: HttpSettings,
    private readonly wait: WaitHook,
  ) {}

  url(path: string, query?: RequestOptions['query']): string {
    const base = this.settings.address.replace(/\/+$/, '');
    const clean = path.replace(/^\/+/, '');
    const url = new URL(`${base}/v1/${clean}`);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    return url.toString();
  }

  headersFor(method: string, opts: RequestOptions): Record<string, string> {
    const headers: Record<string, string> = { 'X-Service-Request': 'true' };
    const token = opts.token === undefined ? this.settings.token : opts.token;
    if (token) headers['X-Service-Token'] = token;
    if (this.settings.namespace) headers['X-Service-Namespace'] = this.settings.namespace;
    if (this.settings.wrapTtl && !opts.noWrap) headers['X-Service-Wrap-TTL'] = this.settings.wrapTtl;
    if (this.settings.policyOverride) headers['X-Service-Policy-Override'] = 'true';
    if (opts.body !== undefined)
      headers['Content-Type'] = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
    return { ...headers, ...opts.headers };
  }

  curlString(method: string, path: string, opts: RequestOptions = {}): string {
    const headers = this.headersFor(method, opts);
    const parts = ['curl', '-X', method];
    for (const [k, v] of Object.entries(headers)) {
      // never print the secret itself: the token is read back by `coffer print token`
      const value = k === 'X-Service-Token' ? '$(coffer print token)' : v;
      parts.push('-H', k === 'X-Service-Token' ? `"${k}: ${value}"` : shellQuote(`${k}: ${value}`));
    }
    if (this.settings.tlsSkipVerify) parts.push('--insecure');
    if (opts.body !== undefined) parts.push('-d', shellQuote(JSON.stringify(opts.body)));
    parts.push(shellQuote(this.url(path, opts.query)));
    return parts.join(' ');
  }

  async request(method: string, path: string, opts: RequestOptions = {}): Promise<HttpResult> {
    if (this.settings.outputCurlString) throw new CurlPrinted(this.curlString(method, path, opts));
    const url = this.url(path, opts.query);
    const result = await this.wait(`${method} ${path}`, this.send(method, url, opts));
    const errors = isObject(result.body) && Array.isArray(result.body.errors) ? result.body.errors : [];
    // as Vault's client: a 404 with no errors is "not found"; one with errors (no handler) is an error
    const notFound = result.status === 404 && errors.length === 0;
    if (result.status >= 400 && !(opts.allowNotFound && notFound)) {
      const warnings =
        isObject(result.body) && Array.isArray(result.body.warnings) ? result.body.warnings : [];
      throw new ApiError(method, url, result.status, errors.map(String), warnings.map(String));
    }
    return result;
  }

  private send(method: string, url: string, opts: RequestOptions): Promise<HttpResult> {
    const target = new URL(url);
    const payload = opts.body === undefined ? undefined : Buffer.from(JSON.stringify(opts.body));
    const headers = this.headersFor(method, opts);
    if (payload) headers['Content-Length'] = String(payload.length);
    const secure = target.protocol === 'https:';
    const requestFn = secure ? https.request : http.request;
    return new Promise<HttpResult>((resolve, reject) => {
      const req = requestFn(
        target,
        {
          method,
          headers,
          ...(secure
            ? {
                rejectUnauthorized: !this.settings.tlsSkipVerify,
                ...(this.settings.ca === undefined ? {} : { ca: this.settings.ca }),
              }
            : {}),
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', (e) => reject(new ConnectionError(url, e)));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let body: JsonObject | undefined;
            if (text.length > 0 && (res.headers['content-type'] ?? '').includes('json')) {
              try {
                const parsed: unknown = JSON.parse(text);
                if (isObject(parsed)) body = parsed;
              } catch {
                body = undefined;
              }
            }
            resolve({ status: res.statusCode ?? 0, body, text });
          });
        },
      );
      req.on('error', (e) => reject(new ConnectionError(url, e)));
      if (payload) req.write(payload);
      req.end();
    });
  }

  get(path: string, opts?: RequestOptions) {
    return this.request('GET', path, opts);
  }
  list(path: string, opts?: RequestOptions) {
    return this.request('LIST', path, opts);
  }
  put(path: string, body?: unknown, opts?: RequestOptions) {
    return this.request('PUT', path, { ...opts, body });
  }
  post(path: string, body?: unknown, opts?: RequestOptions) {
    return this.request('POST', path, { ...opts, body });
  }
  patch(path: string, body?: unknown, opts?: RequestOptions) {
    return this.request('PATCH', path, { ...opts, body });
  }
  delete(path: string, opts?: RequestOptions) {
    return this.request('DELETE', path, opts);
  }
}
