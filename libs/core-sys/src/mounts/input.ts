/**
 * Vault decodes request fields weakly (mapstructure + strconv): these helpers reproduce that for
 * the values clients actually send, so "3", 3, "true" and true are all accepted.
 */

const TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** strconv.ParseBool over a JSON value; undefined when it is not a boolean. */
export function parseGoBool(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value === 1 ? true : value === 0 ? false : undefined;
  if (typeof value !== 'string') return undefined;
  if (TRUE.has(value)) return true;
  if (FALSE.has(value)) return false;
  return undefined;
}

/** strconv.Atoi over a JSON value; undefined when it is not an integer. */
export function parseGoInt(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : undefined;
  if (typeof value !== 'string' || !/^[+-]?\d+$/.test(value)) return undefined;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : undefined;
}
