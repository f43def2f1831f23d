/**
 * The OTLP/HTTP traces URL for a configured endpoint. A bare collector address
 * ("http://collector:4318") gets the standard "/v1/traces" path, as OTEL_EXPORTER_OTLP_ENDPOINT
 * would; an address with a path is taken as the full traces URL.
 */
export function otlpTracesUrl(endpoint: string): string {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new Error(`invalid OTLP endpoint "${endpoint}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`OTLP endpoint "${endpoint}" must be an http(s) URL`);
  }
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/v1/traces';
  return url.toString();
}
