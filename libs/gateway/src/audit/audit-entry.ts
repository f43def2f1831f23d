import {
  auditHmac,
  type AuditedHeader,
  type AuthBlock,
  type ResolvedToken,
  type WrapInfo,
} from '@coffer/contracts';
import { encodeJsonx } from './audit-jsonx';

/**
 * Vault's audit entries (audit/types.go) and their hashing (audit/hashstructure.go): every string
 * of request and response data, the client tokens and (with hmac_accessor) the accessors become
 * `hmac-sha256:<hex>` with the device's salt; paths, operations, policies, display names, entity
 * ids, numbers and booleans stay clear. Pure: the pipeline builds one entry per device.
 */

/** What the gateway knows of a request when it is audited. */
export interface AuditedRequest {
  id: string;
  time: Date;
  operation: string;
  /** the path after /v1/, as the caller named it */
  path: string;
  namespace: string;
  mount?: {
    type: string;
    accessor: string;
    path: string;
    /** the mount's audit_non_hmac_request_keys / _response_keys: their values stay clear */
    nonHmacRequestKeys?: readonly string[];
    nonHmacResponseKeys?: readonly string[];
  };
  clientToken?: string;
  token?: ResolvedToken;
  /** the token's effective policy names (token + identity) */
  policies: string[];
  remoteAddress: string;
  data?: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
  wrapTtl?: number;
  /** the request's trace (W3C trace id), to find its spans from an audit line */
  traceId?: string | undefined;
}

/** How a request ended: the envelope it answered (its JSON) or the error text. */
export interface AuditedOutcome {
  response?: {
    data?: unknown;
    auth?: AuthBlock | null;
    warnings?: string[] | null;
    wrap_info?: WrapInfo;
  };
  error?: string;
}

export interface DeviceFormat {
  salt: string;
  /** log_raw: nothing is hashed */
  logRaw: boolean;
  hmacAccessor: boolean;
  elideListResponses: boolean;
  prefix: string;
  /** format=jsonx: Vault's XML rendering of the entry (no line break after it, as Vault) */
  jsonx: boolean;
}

type Hash = (value: string) => string;

/** What Go's time.Time UnmarshalText accepts (RFC 3339): Vault leaves timestamps clear. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Every string of a JSON value hashed, structure and other scalars kept (hashstructure.go):
 * timestamps stay clear, and so does every string whose nearest enclosing key is one of
 * `ignoredKeys` (the mount's audit_non_hmac_*_keys), at any depth.
 */
export function hashStructure(
  value: unknown,
  hash: Hash,
  ignoredKeys: readonly string[] = [],
  key?: string,
): unknown {
  if (typeof value === 'string') {
    if (RFC3339.test(value)) return value;
    return key !== undefined && ignoredKeys.includes(key) ? value : hash(value);
  }
  if (Array.isArray(value)) return value.map((v) => hashStructure(v, hash, ignoredKeys, key));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const hashed = hashStructure(v, hash, ignoredKeys, k);
      Object.defineProperty(out, k, { value: hashed, enumerable: true, writable: true });
    }
    return out;
  }
  return value;
}

const TRUE_WORDS = ['true', '1', 't', 'T', 'TRUE', 'True'];

/** A device's options as the entry formatter reads them (Vault's defaults). */
export function deviceFormat(salt: string, options: Record<string, string>): DeviceFormat {
  const flag = (name: string, fallback: boolean) => {
    const value = options[name];
    return value === undefined || value === '' ? fallback : TRUE_WORDS.includes(value);
  };
  return {
    salt,
    logRaw: flag('log_raw', false),
    hmacAccessor: flag('hmac_accessor', true),
    elideListResponses: flag('elide_list_responses', false),
    prefix: options['prefix'] ?? '',
    jsonx: options['format'] === 'jsonx',
  };
}

function hashers(format: DeviceFormat): { hash: Hash; accessor: Hash } {
  const clear: Hash = (v) => v;
  const hash: Hash = format.logRaw ? clear : (v) => auditHmac(format.salt, v);
  return { hash, accessor: format.hmacAccessor ? hash : clear };
}

function omitEmpty(entry: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(entry)) {
    if (value === undefined || value === '' || value === null) continue;
    if (Array.isArray(value) && value.length === 0) continue;
    out[key] = value;
  }
  return out;
}

function authEntry(req: AuditedRequest, h: ReturnType<typeof hashers>): Record<string, unknown> | undefined {
  const token = req.token;
  if (!token) return req.clientToken ? { client_token: h.hash(req.clientToken) } : undefined;
  return omitEmpty({
    client_token: req.clientToken ? h.hash(req.clientToken) : undefined,
    accessor: token.accessor ? h.accessor(token.accessor) : undefined,
    display_name: token.displayName,
    policies: req.policies,
    token_policies: token.policies,
    identity_policies: token.identityPolicies,
    entity_id: token.entityId,
    // batch tokens are the ones without an accessor
    token_type: token.accessor === '' ? 'batch' : 'service',
    token_ttl:
      token.expiresAt > 0
        ? Math.max(0, Math.round((token.expiresAt - req.time.getTime()) / 1000))
        : undefined,
  });
}

function headersEntry(
  req: AuditedRequest,
  audited: readonly AuditedHeader[],
  h: ReturnType<typeof hashers>,
): Record<string, string[]> | undefined {
  const out: Record<string, string[]> = {};
  for (const { name, hmac } of audited) {
    const value = req.headers[name];
    if (value === undefined) continue;
    const values = Array.isArray(value) ? value : [value];
    out[name] = hmac ? values.map(h.hash) : values;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function requestEntry(
  req: AuditedRequest,
  audited: readonly AuditedHeader[],
  h: ReturnType<typeof hashers>,
): Record<string, unknown> {
  return omitEmpty({
    id: req.id,
    operation: req.operation,
    mount_type: req.mount?.type,
    mount_accessor: req.mount?.accessor,
    mount_point: req.mount?.path,
    client_token: req.clientToken ? h.hash(req.clientToken) : undefined,
    client_token_accessor: req.token?.accessor ? h.accessor(req.token.accessor) : undefined,
    namespace: { id: req.namespace === '' ? 'root' : req.namespace },
    path: req.path,
    data:
      req.data && Object.keys(req.data).length > 0
        ? hashStructure(req.data, h.hash, req.mount?.nonHmacRequestKeys)
        : undefined,
    remote_address: req.remoteAddress,
    headers: headersEntry(req, audited, h),
    wrap_ttl: req.wrapTtl,
    trace_id: req.traceId,
  });
}

/** elide_list_responses: a list's keys (and key_info) become their count. */
function elideList(data: unknown): unknown {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return data;
  const out: Record<string, unknown> = { ...(data as Record<string, unknown>) };
  if (Array.isArray(out['keys'])) out['keys'] = out['keys'].length;
  const info = out['key_info'];
  if (info !== null && typeof info === 'object') out['key_info'] = Object.keys(info).length;
  return out;
}

function responseAuth(auth: AuthBlock, h: ReturnType<typeof hashers>): Record<string, unknown> {
  return omitEmpty({
    client_token: h.hash(auth.client_token),
    accessor: h.accessor(auth.accessor),
    policies: auth.policies,
    token_policies: auth.token_policies,
    identity_policies: auth.identity_policies,
    metadata: auth.metadata ? hashStructure(auth.metadata, h.hash) : undefined,
    entity_id: auth.entity_id,
    token_type: auth.token_type,
    token_ttl: auth.lease_duration,
    num_uses: auth.num_uses === 0 ? undefined : auth.num_uses,
  });
}

/** Vault's hashWrapInfo: the token always, the accessors with hmac_accessor; the rest clear. */
function wrapInfoEntry(info: WrapInfo, h: ReturnType<typeof hashers>): Record<string, unknown> {
  return omitEmpty({
    token: h.hash(info.token),
    accessor: h.accessor(info.accessor),
    ttl: info.ttl,
    creation_time: info.creation_time,
    creation_path: info.creation_path,
    wrapped_accessor: info.wrapped_accessor ? h.accessor(info.wrapped_accessor) : undefined,
  });
}

function serialise(entry: Record<string, unknown>, format: DeviceFormat): string {
  return format.jsonx
    ? `${format.prefix}${encodeJsonx(entry)}`
    : `${format.prefix}${JSON.stringify(entry)}\n`;
}

/** One "request" entry, serialised with the device's prefix. */
export function requestLine(
  req: AuditedRequest,
  error: string | undefined,
  audited: readonly AuditedHeader[],
  format: DeviceFormat,
): string {
  const h = hashers(format);
  const entry = omitEmpty({
    time: req.time.toISOString(),
    type: 'request',
    auth: authEntry(req, h),
    request: requestEntry(req, audited, h),
    error,
  });
  return serialise(entry, format);
}

/** One "response" entry, serialised with the device's prefix. */
export function responseLine(
  req: AuditedRequest,
  outcome: AuditedOutcome,
  audited: readonly AuditedHeader[],
  format: DeviceFormat,
  time: Date,
): string {
  const h = hashers(format);
  const res = outcome.response;
  let data = res?.data;
  if (format.elideListResponses && req.operation === 'list') data = elideList(data);
  const response = res
    ? omitEmpty({
        mount_type: req.mount?.type,
        mount_accessor: req.mount?.accessor,
        mount_point: req.mount?.path,
        auth: res.auth ? responseAuth(res.auth, h) : undefined,
        data:
          data !== null && data !== undefined
            ? hashStructure(data, h.hash, req.mount?.nonHmacResponseKeys)
            : undefined,
        warnings: res.warnings ?? undefined,
        wrap_info: res.wrap_info ? wrapInfoEntry(res.wrap_info, h) : undefined,
      })
    : undefined;
  const entry = omitEmpty({
    time: time.toISOString(),
    type: 'response',
    auth: authEntry(req, h),
    request: requestEntry(req, audited, h),
    response,
    error: outcome.error,
  });
  return serialise(entry, format);
}
