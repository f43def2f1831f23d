import { parseDuration } from '@coffer/config';
import { invalidRequest } from '@coffer/contracts';

/**
 * Vault decodes request fields weakly (mapstructure WeakDecode / framework.FieldData): "3" is 3,
 * "true" is true, "" is the zero value. These helpers do the same and fail with 400 texts in
 * Vault's style. Shared by the token store, userpass and identity.
 */

const quote = (s: string): string => JSON.stringify(s);

export function weakBool(value: unknown, field: string): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  if (typeof value === 'string') {
    if (value === '') return false;
    if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
    if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
    throw invalidRequest(
      `cannot parse '${field}' as bool: strconv.ParseBool: parsing ${quote(value)}: invalid syntax`,
    );
  }
  throw invalidRequest(`cannot parse '${field}' as bool`);
}

export function weakInt(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) throw invalidRequest(`cannot parse '${field}' as int: not an integer`);
    return value;
  }
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string') {
    if (value === '') return 0;
    if (!/^[+-]?\d+$/.test(value.trim())) {
      throw invalidRequest(
        `cannot parse '${field}' as int: strconv.ParseInt: parsing ${quote(value)}: invalid syntax`,
      );
    }
    return Number.parseInt(value.trim(), 10);
  }
  throw invalidRequest(`cannot parse '${field}' as int`);
}

/** Seconds; Go duration strings, integer seconds or "<n>d". Parse errors carry Go's text. */
export function weakDuration(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' && typeof value !== 'number')
    throw invalidRequest(`cannot parse '${field}' as duration`);
  return parseDuration(value);
}

export function weakString(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw invalidRequest(`cannot parse '${field}' as string`);
}

/** map[string]string: values that are not strings are stringified like Vault's TypeKVPairs. */
export function weakStringMap(value: unknown, field: string): Record<string, string> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value))
    throw invalidRequest(`cannot parse '${field}' as map[string]string`);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (v === null || v === undefined) out[k] = '';
    else if (typeof v === 'string') out[k] = v;
    else if (typeof v === 'number' || typeof v === 'boolean') out[k] = String(v);
    else throw invalidRequest(`cannot parse '${field}' as map[string]string`);
  }
  return out;
}
