import type { IncomingHttpHeaders } from 'node:http';
import { coreWrapResponse, type WrapInfo } from '@coffer/contracts';
import type { Headers, Transport } from '@coffer/transport';
import { buildEnvelope, jsonResult, type EngineResult, type HttpResult } from '../response/envelope';

/** What the wrapping of one request needs to know about it. */
export interface WrapSettings {
  /** the requested wrap TTL in seconds (X-Service-Wrap-TTL / X-Vault-Wrap-TTL), if any */
  wrapTtl: number | undefined;
  /** the request path, Vault's creation_path */
  path: string;
  requestId: string;
  /** the caller context, so core-sys sees the request as the caller's */
  headers: Headers;
  timeoutMs: number;
  /** X-Service-Wrap-Format / X-Vault-Wrap-Format: "jwt" hands the wrapping token out as a JWT */
  format?: 'jwt';
  /** type of the mount that answered (an approle secret id's accessor is the wrapped accessor) */
  mountType?: string;
}

const WRAP_FORMAT_HEADERS = ['x-service-wrap-format', 'x-vault-wrap-format'] as const;

/** Vault's requestWrapInfo: only "jwt" changes anything; other values are ignored. */
export function wrapFormatOf(headers: IncomingHttpHeaders): 'jwt' | undefined {
  for (const name of WRAP_FORMAT_HEADERS) {
    const raw = headers[name];
    const value = Array.isArray(raw) ? raw[0] : raw;
    if (value !== undefined && value !== '') return value === 'jwt' ? 'jwt' : undefined;
  }
  return undefined;
}

/**
 * Vault's wrapped_accessor: the accessor of the token a login issued or, for an approle mount
 * answering a secret id without an auth block, the secret id's accessor.
 */
function wrappedAccessorOf(result: EngineResult, mountType: string | undefined): string | undefined {
  if (result.auth) return result.auth.accessor;
  const secretIdAccessor = result.data?.['secret_id_accessor'];
  if (mountType === 'approle' && typeof secretIdAccessor === 'string') return secretIdAccessor;
  return undefined;
}

/**
 * Vault's response wrapping, after the engine answered and the answer was rendered: a request
 * with a wrap TTL of a second or more gets, instead of its answer, a wrap_info naming the
 * single-use token core-sys keeps the rendered answer under. Raw answers (sys/health...) and
 * answers without a body (204) are never wrapped, except an unwrapped response (marked
 * rewrappable), which Vault wraps again as it is under a new token.
 */
export async function wrapIfRequested(
  transport: Transport,
  settings: WrapSettings,
  result: EngineResult,
  rendered: HttpResult,
): Promise<{ http: HttpResult; wrapInfo?: WrapInfo }> {
  const { wrapTtl } = settings;
  if (wrapTtl === undefined || wrapTtl < 1) return { http: rendered };
  const wrappable = result.kind !== 'raw' || result.rewrappable === true;
  if (!wrappable || rendered.body === undefined || rendered.status !== 200) return { http: rendered };
  const wrapped = wrappedAccessorOf(result, settings.mountType);
  const wrapInfo = await transport.request(
    coreWrapResponse,
    {
      response: JSON.parse(rendered.body) as Record<string, unknown>,
      ttl: Math.floor(wrapTtl),
      creationPath: settings.path,
      ...(wrapped !== undefined ? { wrappedAccessor: wrapped } : {}),
      ...(settings.format ? { format: settings.format } : {}),
    },
    { headers: settings.headers, timeoutMs: settings.timeoutMs, write: true },
  );
  const http = jsonResult(200, {
    ...buildEnvelope(settings.requestId, { data: null, warnings: [] }),
    wrap_info: wrapInfo,
  });
  return { http, wrapInfo };
}
