/**
 * A tiny HTTP client for end-to-end tests: paths are relative to /v1/ unless they start with "/",
 * bodies are JSON, responses are parsed when they are JSON. It never throws on a status code;
 * tests assert on `status` and `body`.
 */
export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  /** parsed JSON when the response is JSON, else the text ("" for an empty body) */
  body: T;
  text: string;
}

export interface ApiRequestOptions {
  /** extra request headers (override the defaults) */
  headers?: Record<string, string>;
  /** JSON-encoded unless `raw` is given */
  body?: unknown;
  /** sent as-is (string or bytes), e.g. malformed JSON */
  raw?: string | Uint8Array;
  /** query string parameters */
  query?: Record<string, string | number | boolean>;
  /** send no token even if the client has one */
  anonymous?: boolean;
  /** abort the request after this long (the promise rejects) */
  timeoutMs?: number;
}

export interface ApiClient {
  readonly baseUrl: string;
  readonly token: string | undefined;
  request<T = any>(method: string, path: string, opts?: ApiRequestOptions): Promise<ApiResponse<T>>;
  get<T = any>(path: string, opts?: ApiRequestOptions): Promise<ApiResponse<T>>;
  head(path: string, opts?: ApiRequestOptions): Promise<ApiResponse<string>>;
  put<T = any>(path: string, body?: unknown, opts?: ApiRequestOptions): Promise<ApiResponse<T>>;
  post<T = any>(path: string, body?: unknown, opts?: ApiRequestOptions): Promise<ApiResponse<T>>;
  /** PATCH with Content-Type application/merge-patch+json unless a header overrides it */
  patch<T = any>(path: string, body?: unknown, opts?: ApiRequestOptions): Promise<ApiResponse<T>>;
  delete<T = any>(path: string, opts?: ApiRequestOptions): Promise<ApiResponse<T>>;
  /** the LIST verb, as Vault clients send it */
  list<T = any>(path: string, opts?: ApiRequestOptions): Promise<ApiResponse<T>>;
  /** the same client with another token (undefined = none) */
  withToken(token: string | undefined): ApiClient;
}

export function api(baseUrl: string, token?: string): ApiClient {
  const base = baseUrl.replace(/\/+$/, '');

  const url = (path: string, query?: ApiRequestOptions['query']): string => {
    const full = path.startsWith('/') ? `${base}${path}` : `${base}/v1/${path}`;
    if (!query || Object.keys(query).length === 0) return full;
    const qs = new URLSearchParams(
      Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]),
    ).toString();
    return `${full}${full.includes('?') ? '&' : '?'}${qs}`;
  };

  const request = async <T = any>(
    method: string,
    path: string,
    opts: ApiRequestOptions = {},
  ): Promise<ApiResponse<T>> => {
    const headers: Record<string, string> = {};
    if (token !== undefined && !opts.anonymous) headers['x-service-token'] = token;
    let body: string | Uint8Array | undefined;
    if (opts.raw !== undefined) body = opts.raw;
    else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
    } else if (method === 'PATCH') headers['content-type'] = 'application/merge-patch+json';
    Object.assign(headers, opts.headers);
    const res = await fetch(url(path, opts.query), {
      method,
      headers,
      body,
      ...(opts.timeoutMs === undefined ? {} : { signal: AbortSignal.timeout(opts.timeoutMs) }),
    });
    const text = await res.text();
    const isJson = (res.headers.get('content-type') ?? '').includes('json') && text.length > 0;
    let parsed: unknown = text;
    if (isJson) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  };

  return {
    baseUrl: base,
    token,
    request,
    get: (path, opts) => request('GET', path, opts),
    head: (path, opts) => request<string>('HEAD', path, opts),
    put: (path, body, opts) => request('PUT', path, { ...opts, body }),
    post: (path, body, opts) => request('POST', path, { ...opts, body }),
    patch: (path, body, opts) => request('PATCH', path, { ...opts, body }),
    delete: (path, opts) => request('DELETE', path, opts),
    list: (path, opts) => request('LIST', path, opts),
    withToken: (other) => api(base, other),
  };
}
