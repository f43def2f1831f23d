import { parseDuration } from '@coffer/config';
import { invalidRequest, isDomainError, sysMountEnableBody, sysMountTuneBody } from '@coffer/contracts';
import { parseGoBool } from './input';
import { SYSTEM_MAX_LEASE_TTL } from './mount.model';

/**
 * Reading sys/mounts and sys/auth request bodies with Vault's rules and error texts
 * (handleMount / handleEnableAuth / handleTuneWriteCommon).
 */

export interface EnableInput {
  type: string;
  description: string;
  defaultLeaseTtl: number;
  maxLeaseTtl: number;
  forceNoCache: boolean;
  listingVisibility: string;
  tokenType: string;
  options: Record<string, string>;
  local: boolean;
  sealWrap: boolean;
  externalEntropyAccess: boolean;
}

export interface TuneInput {
  /** undefined = unchanged; 0 = back to the system default */
  defaultLeaseTtl?: number;
  maxLeaseTtl?: number;
  description?: string;
  options?: Record<string, string>;
  listingVisibility?: string;
  tokenType?: string;
}

const LISTING_VISIBILITY = new Set(['', 'unauth', 'hidden']);
const TOKEN_TYPES = new Set(['', 'default-service', 'default-batch', 'service', 'batch']);

function flag(body: Record<string, unknown>, key: string): boolean {
  const raw = body[key];
  if (raw === undefined || raw === null) return false;
  const value = parseGoBool(raw);
  if (value === undefined) throw invalidRequest(`invalid value for '${key}': expected a boolean`);
  return value;
}

/** Vault's map[string]string options: scalar values are stringified, like its weak decoding. */
export function stringOptions(raw: Record<string, unknown> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw ?? {})) {
    if (value === null || value === undefined) continue;
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw invalidRequest(`invalid value for option '${key}': expected a string`);
    }
    out[key] = String(value);
  }
  return out;
}

/** "" keeps, "system" resets to 0, anything else is a Vault duration (seconds or "1h"). */
function ttl(raw: string | number | undefined, onError: (message: string) => string): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (raw === 'system') return 0;
  try {
    const seconds = parseDuration(raw);
    if (seconds < 0) throw invalidRequest(`time: invalid duration ${JSON.stringify(String(raw))}`);
    return seconds;
  } catch (error) {
    if (isDomainError(error)) throw invalidRequest(onError(error.message));
    throw error;
  }
}

function checkListingVisibility(value: string): string {
  if (!LISTING_VISIBILITY.has(value)) throw invalidRequest(`invalid listing_visibility ${value}`);
  return value;
}

function checkTokenType(value: string): string {
  if (!TOKEN_TYPES.has(value)) throw invalidRequest(`invalid value for "token_type": ${value}`);
  return value;
}

const malformed = (message: string | undefined) =>
  invalidRequest(`invalid request body: ${message ?? 'malformed'}`);

export function parseEnableBody(raw: Record<string, unknown>, auth: boolean): EnableInput {
  const parsed = sysMountEnableBody.safeParse(raw);
  if (!parsed.success) throw malformed(parsed.error.issues[0]?.message);
  const body = parsed.data;
  const config = body.config ?? {};
  const defaultLeaseTtl =
    ttl(
      config.default_lease_ttl,
      (e) => `unable to parse default TTL of ${String(config.default_lease_ttl)}: ${e}`,
    ) ?? 0;
  const maxLeaseTtl =
    ttl(config.max_lease_ttl, (e) => `unable to parse max TTL of ${String(config.max_lease_ttl)}: ${e}`) ?? 0;
  if (maxLeaseTtl !== 0 && defaultLeaseTtl > maxLeaseTtl) {
    throw invalidRequest('given default lease TTL greater than given max lease TTL');
  }
  if (defaultLeaseTtl > SYSTEM_MAX_LEASE_TTL && maxLeaseTtl === 0) {
    throw invalidRequest(
      `given default lease TTL greater than system max lease TTL of ${SYSTEM_MAX_LEASE_TTL}`,
    );
  }
  const forceNoCache = config.force_no_cache === undefined ? false : flag(config, 'force_no_cache');
  return {
    type: body.type ?? '',
    description: body.description ?? '',
    defaultLeaseTtl,
    maxLeaseTtl,
    forceNoCache,
    listingVisibility: checkListingVisibility(config.listing_visibility ?? ''),
    tokenType: auth ? checkTokenType(config.token_type ?? '') || 'default-service' : '',
    options: stringOptions(body.options),
    local: flag(body, 'local'),
    sealWrap: flag(body, 'seal_wrap'),
    externalEntropyAccess: flag(body, 'external_entropy_access'),
  };
}

export function parseTuneBody(raw: Record<string, unknown>, auth: boolean): TuneInput {
  const parsed = sysMountTuneBody.safeParse(raw);
  if (!parsed.success) throw malformed(parsed.error.issues[0]?.message);
  const body = parsed.data;
  const out: TuneInput = {};
  const defaultLeaseTtl = ttl(body.default_lease_ttl, (e) => e);
  if (defaultLeaseTtl !== undefined) out.defaultLeaseTtl = defaultLeaseTtl;
  const maxLeaseTtl = ttl(body.max_lease_ttl, (e) => e);
  if (maxLeaseTtl !== undefined) out.maxLeaseTtl = maxLeaseTtl;
  if (body.description !== undefined && body.description !== '') out.description = body.description;
  if (body.options !== undefined) {
    const options = stringOptions(body.options);
    if (Object.keys(options).length > 0) out.options = options;
  }
  if (body.listing_visibility !== undefined)
    out.listingVisibility = checkListingVisibility(body.listing_visibility);
  if (auth && body.token_type !== undefined && body.token_type !== '')
    out.tokenType = checkTokenType(body.token_type);
  return out;
}
