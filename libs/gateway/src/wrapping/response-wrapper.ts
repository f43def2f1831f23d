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
  const wrapInfo = await transport.request(
    coreWrapResponse,
    {
      response: JSON.parse(rendered.body) as Record<string, unknown>,
      ttl: Math.floor(wrapTtl),
      creationPath: settings.path,
      ...(result.auth ? { wrappedAccessor: result.auth.accessor } : {}),
    },
    { headers: settings.headers, timeoutMs: settings.timeoutMs, write: true },
  );
  const http = jsonResult(200, {
    ...buildEnvelope(settings.requestId, { data: null, warnings: [] }),
    wrap_info: wrapInfo,
  });
  return { http, wrapInfo };
}
