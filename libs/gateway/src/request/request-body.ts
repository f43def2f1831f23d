import { invalidRequest } from '@coffer/contracts';
import { GatewayError } from '../errors/gateway-error';

export const MERGE_PATCH_CONTENT_TYPE = 'application/merge-patch+json';

const EMPTY_BODY: Readonly<Record<string, unknown>> = Object.freeze({});

/**
 * The JSON body of a write, whatever its Content-Type (Vault does not require one). Empty or
 * whitespace-only bodies and `null` are an empty object; anything but a JSON object is refused
 * with Vault's "error parsing JSON".
 */
export function parseJsonBody(raw: Buffer | string | undefined): Record<string, unknown> {
  if (raw === undefined || raw.length === 0) return { ...EMPTY_BODY };
  const text = typeof raw === 'string' ? raw : raw.toString('utf8');
  if (text.trim() === '') return { ...EMPTY_BODY };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidRequest('error parsing JSON');
  }
  if (value === null) return { ...EMPTY_BODY };
  if (typeof value !== 'object' || Array.isArray(value)) throw invalidRequest('error parsing JSON');
  return value as Record<string, unknown>;
}

export const FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded';

/** Whether a Content-Type header names a form-encoded body (parameters allowed). */
export function isFormEncoded(header: string | undefined): boolean {
  return (header ?? '').split(';')[0]?.trim().toLowerCase() === FORM_CONTENT_TYPE;
}

/**
 * A form-encoded body (routes declaring `formBody`, e.g. OAuth's token endpoint) as string fields.
 * A parameter sent twice is refused, as OAuth requires (RFC 6749 section 3.1).
 */
export function parseFormBody(raw: Buffer | string | undefined): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (raw === undefined) return body;
  const params = new URLSearchParams(typeof raw === 'string' ? raw : raw.toString('utf8'));
  for (const [name, value] of params) {
    if (Object.hasOwn(body, name)) throw invalidRequest(`parameter "${name}" is included more than once`);
    Object.defineProperty(body, name, { value, enumerable: true, writable: true, configurable: true });
  }
  return body;
}

/**
 * PATCH needs `application/merge-patch+json` (parameters allowed). Like Vault: a missing or
 * unparsable media type is a 400, another media type a 415.
 */
export function checkMergePatchContentType(header: string | undefined): void {
  const mediaType = (header ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (mediaType === '') throw invalidRequest('mime: no media type');
  if (!/^[!#$%&'*+.^_`|~0-9a-z-]+\/[!#$%&'*+.^_`|~0-9a-z-]+$/.test(mediaType)) {
    throw invalidRequest('mime: expected token after slash');
  }
  if (mediaType !== MERGE_PATCH_CONTENT_TYPE) {
    throw new GatewayError(
      'unsupported_media_type',
      `PATCH requires Content-Type of ${MERGE_PATCH_CONTENT_TYPE}, provided ${mediaType}`,
    );
  }
}
