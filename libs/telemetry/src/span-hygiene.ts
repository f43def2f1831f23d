import type { Span } from '@opentelemetry/sdk-trace-base';

/**
 * Attributes instrumentations fill from URLs: http's `http.url` / `http.target` (and the newer
 * `url.full`), pg's `db.connection_string`. A query string can carry a token (`?token=`), a
 * connection string a password or `sslpassword`: only the path is kept.
 */
const URL_ATTRIBUTES = ['http.url', 'http.target', 'url.full', 'db.connection_string'];
/** Attributes that only ever hold query values or credentials: removed. */
const DROPPED_ATTRIBUTES = ['url.query', 'db.user.password'];

/** `/v1/a?token=x` -> `/v1/a`; `postgres://u:p@h/db?sslmode=x` -> `postgres://h/db`. */
export function withoutQuery(value: string): string {
  const cut = value.search(/[?#]/);
  const path = cut < 0 ? value : value.slice(0, cut);
  // userinfo of an absolute URL ("scheme://user:pass@host")
  return path.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1');
}

/** Rewrites the URL-bearing attributes of a live span (onStart and again before it ends). */
export function scrubSpan(span: Span): void {
  const attributes = span.attributes as Record<string, unknown>;
  for (const key of URL_ATTRIBUTES) {
    const value = attributes[key];
    if (typeof value === 'string') {
      const clean = withoutQuery(value);
      if (clean !== value) attributes[key] = clean;
    }
  }
  for (const key of DROPPED_ATTRIBUTES) {
    if (key in attributes) delete attributes[key];
  }
}
