import { engineResponseSchema, notFound, type AuthBlock, type Operation } from '@coffer/contracts';
import type { z } from 'zod';

/** An engine's answer as the transport hands it over (defaults applied). */
export type EngineResult = z.output<typeof engineResponseSchema>;

/** What the HTTP layer writes: a status and an already serialised body (none for 204/HEAD). */
export interface HttpResult {
  status: number;
  body: string | undefined;
  contentType: string;
  /** binary raw bodies (DER certificates and CRLs): sent instead of `body` */
  bytes?: Buffer;
  /** extra headers a raw engine answer set (RAW_RESPONSE_HEADERS only) */
  headers?: Record<string, string>;
}

/** The response headers an engine's raw answer may set; any other is dropped. */
export const RAW_RESPONSE_HEADERS: readonly string[] = ['cache-control', 'pragma', 'www-authenticate'];

function rawHeaders(given: Record<string, string> | undefined): { headers?: Record<string, string> } {
  if (!given) return {};
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(given)) {
    const lower = name.toLowerCase();
    if (RAW_RESPONSE_HEADERS.includes(lower)) headers[lower] = value;
  }
  return Object.keys(headers).length > 0 ? { headers } : {};
}

export const JSON_CONTENT_TYPE = 'application/json';

export interface Envelope {
  request_id: string;
  lease_id: string;
  renewable: boolean;
  lease_duration: number;
  data: Record<string, unknown> | null;
  wrap_info: null;
  warnings: string[] | null;
  auth: AuthBlock | null;
}

export function buildEnvelope(
  requestId: string,
  parts: {
    data: Record<string, unknown> | null;
    warnings: string[];
    lease?: EngineResult['lease'];
    auth?: AuthBlock | null;
  },
): Envelope {
  return {
    request_id: requestId,
    lease_id: parts.lease?.lease_id ?? '',
    renewable: parts.lease?.renewable ?? false,
    lease_duration: parts.lease?.lease_duration ?? 0,
    data: parts.data,
    wrap_info: null,
    // Vault renders no warnings as null
    warnings: parts.warnings.length === 0 ? null : parts.warnings,
    auth: parts.auth ?? null,
  };
}

export const jsonResult = (status: number, payload: unknown): HttpResult => ({
  status,
  body: JSON.stringify(payload),
  contentType: JSON_CONTENT_TYPE,
});

const noContent = (): HttpResult => ({ status: 204, body: undefined, contentType: JSON_CONTENT_TYPE });

function hasKeys(data: Record<string, unknown> | null): boolean {
  const keys = data?.['keys'];
  return Array.isArray(keys) && keys.length > 0;
}

/**
 * Vault's response rules (http/logical.go, handler.go respondOk):
 *  - raw: the body as given, with its status and content type;
 *  - LIST with no keys: 404 {"errors":[]} (thrown as not_found for the error table);
 *  - nothing to return: 404 for a read, 204 otherwise;
 *  - otherwise the envelope, and for "injected" (Vault's sys injector) the data fields at the top
 *    level as well (the envelope's fields win a name clash).
 */
export function renderEngineResponse(res: EngineResult, operation: Operation, requestId: string): HttpResult {
  if (res.kind === 'raw') {
    const status = res.status ?? 200;
    const headers = rawHeaders(res.headers);
    if (res.body === undefined || status === 204)
      return { status, body: undefined, contentType: res.contentType ?? JSON_CONTENT_TYPE, ...headers };
    const contentType = res.contentType ?? JSON_CONTENT_TYPE;
    if (res.bodyEncoding === 'base64' && typeof res.body === 'string')
      return { status, body: '', bytes: Buffer.from(res.body, 'base64'), contentType, ...headers };
    const body =
      typeof res.body === 'string' && contentType !== JSON_CONTENT_TYPE ? res.body : JSON.stringify(res.body);
    return { status, body, contentType, ...headers };
  }
  if (operation === 'list' && !hasKeys(res.data)) throw notFound();
  const empty = res.data === null && res.auth === null && res.warnings.length === 0 && !res.lease?.lease_id;
  if (empty && res.status === undefined) {
    if (operation === 'read') throw notFound();
    return noContent();
  }
  const status = res.status ?? 200;
  if (status === 204) return noContent();
  const envelope = buildEnvelope(requestId, res);
  if (res.kind === 'injected' && res.data !== null) return jsonResult(status, { ...res.data, ...envelope });
  return jsonResult(status, envelope);
}
