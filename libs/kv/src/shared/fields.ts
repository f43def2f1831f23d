import { invalidRequest, type DomainError } from '@coffer/contracts';

/**
 * Weak decoding of request fields the way Vault's framework does it (JSON numbers, numeric
 * strings, "true"/"false"...), with its "Field validation failed" texts. Values are echoed in
 * errors only for these non-secret settings fields, never for secret data.
 */

function fieldError(field: string, value: unknown, reason: string): DomainError {
  const shown = typeof value === 'string' ? value : JSON.stringify(value);
  return invalidRequest(
    `Field validation failed: error converting input ${shown} for field "${field}": ${reason}`,
  );
}

const INT_PATTERN = /^[+-]?\d+$/;

/** An integer field: JSON integer or a decimal string ("" counts as 0, like Vault). */
export function parseIntField(field: string, value: unknown): number {
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value)) return value;
    throw fieldError(field, value, `cannot parse '${String(value)}' as int`);
  }
  if (typeof value === 'string') {
    const text = value.trim();
    if (text === '') return 0;
    if (INT_PATTERN.test(text)) {
      const parsed = Number(text);
      if (Number.isSafeInteger(parsed)) return parsed;
    }
    throw fieldError(
      field,
      value,
      `cannot parse '${value}' as int: strconv.ParseInt: parsing ${JSON.stringify(value)}: invalid syntax`,
    );
  }
  throw fieldError(field, value, `expected an integer, got '${value === null ? 'null' : typeof value}'`);
}

const TRUE_TEXTS = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE_TEXTS = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** A boolean field: JSON boolean, 0/1, or the strings Go's strconv.ParseBool accepts. */
export function parseBoolField(field: string, value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  if (typeof value === 'string') {
    if (TRUE_TEXTS.has(value)) return true;
    if (FALSE_TEXTS.has(value) || value === '') return false;
  }
  throw fieldError(field, value, `cannot parse '${String(value)}' as bool`);
}

/**
 * TypeCommaIntSlice: a JSON array of integers (or numeric strings), a comma-separated string,
 * or a single integer.
 */
export function parseIntListField(field: string, value: unknown): number[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.map((item) => parseIntField(field, item));
  if (typeof value === 'string') {
    return value
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part !== '')
      .map((part) => parseIntField(field, part));
  }
  return [parseIntField(field, value)];
}

/** options.cas of a kv v2 write: any weakly-int value; Vault's own text when it is not one. */
export function parseCas(value: unknown): number {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number' && Number.isFinite(value)) return Math.trunc(value);
  if (typeof value === 'string' && INT_PATTERN.test(value.trim())) return Number(value.trim());
  if (typeof value === 'string' && value.trim() === '') return 0;
  throw invalidRequest('error parsing check-and-set parameter');
}
