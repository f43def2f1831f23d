import { request as httpsRequest, type Agent } from 'node:https';
import { DomainError } from '@coffer/contracts';

/** One JSON call to Graph or Resource Manager. */
export interface AzureCall {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  token: string;
  body?: unknown;
  /** what the call does, for error messages ("create the application") */
  what: string;
  timeoutMs: number;
  agent?: Agent;
}

export interface AzureAnswer {
  status: number;
  body: unknown;
}

/** Azure answered with an error status: the caller decides whether it is fatal (a 404 on delete is not). */
export class AzureStatusError extends Error {
  constructor(
    readonly status: number,
    readonly what: string,
    readonly detail: string,
  ) {
    super(`failed to ${what}: Azure answered ${status}${detail ? `: ${detail}` : ''}`);
    this.name = 'AzureStatusError';
  }
}

/** The outside system failed: the caller sees 502 with the reason (never a secret). */
export const upstream = (message: string): DomainError => new DomainError('upstream_error', message);

/** Azure's error text from a Graph or ARM error body ({error: {code, message}}). */
function errorDetail(body: unknown): string {
  if (body && typeof body === 'object' && 'error' in body) {
    const error = body.error;
    if (error && typeof error === 'object') {
      const { code, message } = error as { code?: unknown; message?: unknown };
      return [code, message].filter((part) => typeof part === 'string' && part !== '').join(': ');
    }
  }
  return '';
}

/**
 * node's https (not fetch) so a mount's own CA bundle applies through an Agent; every call has a
 * deadline (config request_timeout) and a failed connection or time-out is an upstream error.
 */
export function azureRequest(call: AzureCall): Promise<AzureAnswer> {
  const payload = call.body === undefined ? undefined : Buffer.from(JSON.stringify(call.body), 'utf8');
  return new Promise<AzureAnswer>((resolve, reject) => {
    const req = httpsRequest(
      call.url,
      {
        method: call.method,
        agent: call.agent,
        headers: {
          authorization: `Bearer ${call.token}`,
          accept: 'application/json',
          ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', (error) => reject(upstream(`failed to ${call.what}: ${error.message}`)));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = undefined;
          try {
            body = text === '' ? undefined : JSON.parse(text);
          } catch {
            body = undefined;
          }
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) resolve({ status, body });
          else reject(new AzureStatusError(status, call.what, errorDetail(body)));
        });
      },
    );
    req.setTimeout(call.timeoutMs, () => {
      req.destroy(upstream(`failed to ${call.what}: no answer from Azure within ${call.timeoutMs / 1000}s`));
    });
    req.on('error', (error) => {
      reject(error instanceof DomainError ? error : upstream(`failed to ${call.what}: ${error.message}`));
    });
    req.end(payload);
  });
}
