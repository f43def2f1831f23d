import { isDomainError } from '../domain-errors';
import {
  addVaultIssue,
  parseDuration,
  weakBool,
  weakDuration,
  weakInt,
  weakString,
  weakStringList,
  weakStringMap,
  type FieldFailure,
} from '../fields';

/**
 * The weak fields (fields/weak-fields.ts) worded the way core-sys's Vault handlers word their
 * failures. The token store, userpass and identity read their fields with framework.FieldData
 * ("cannot parse 'ttl' as duration"); sys/mounts and sys/auth read a JSON struct of their own
 * ("invalid value for 'local': expected a boolean"). A JSON null is "not set", like everywhere.
 */

const quote = (s: string): string => JSON.stringify(s);

const boolText = ({ field, input }: FieldFailure): string =>
  typeof input === 'string'
    ? `cannot parse '${field}' as bool: strconv.ParseBool: parsing ${quote(input)}: invalid syntax`
    : `cannot parse '${field}' as bool`;

const intText = ({ field, input }: FieldFailure): string => {
  if (typeof input === 'string')
    return `cannot parse '${field}' as int: strconv.ParseInt: parsing ${quote(input)}: invalid syntax`;
  if (typeof input === 'number') return `cannot parse '${field}' as int: not an integer`;
  return `cannot parse '${field}' as int`;
};

/** TypeBool of a framework.FieldData handler. */
export const fieldBool = (description?: string) => weakBool({ message: boolText, description });

/** TypeInt of a framework.FieldData handler (true/false read as 1/0, like mapstructure). */
export const fieldInt = (description?: string) => weakInt({ bools: true, message: intText, description });

/** TypeDurationSecond of a framework.FieldData handler, in seconds; Go's text for a bad string. */
export const fieldDuration = (description?: string) =>
  weakDuration({
    message: ({ field, reason, cause }) =>
      cause === 'value' ? reason : `cannot parse '${field}' as duration`,
    description,
  });

/** TypeString of a framework.FieldData handler. */
export const fieldString = (description?: string) =>
  weakString({ message: ({ field }) => `cannot parse '${field}' as string`, description });

/** TypeCommaStringSlice of a framework.FieldData handler. */
export const fieldStringList = (description?: string) =>
  weakStringList({ message: () => 'expected a list of strings or a comma-separated string', description });

/** TypeKVPairs of a framework.FieldData handler; `prefix` is the handler's own wrapping of the error. */
export const fieldStringMap = (description?: string, prefix = '') => {
  const text = ({ field }: { field: string }): string =>
    `${prefix}cannot parse '${field}' as map[string]string`;
  return weakStringMap({ bools: 'text', message: text, valueMessage: text, description });
};

/**
 * A duration where "" means "not given" (the token store falls back to `lease` then), and any
 * other value is Vault's ParseDurationSecond. `wrap` words a parse failure.
 */
export function optionalDuration(options: {
  description?: string;
  wrap?: (reason: string, input: string) => string;
  /** a value that stands for 0 ("system" resets a mount TTL to the system default) */
  zeroWord?: string;
}) {
  const wrap = options.wrap ?? ((reason: string) => reason);
  return weakString({
    message: ({ field }) => `cannot parse '${field}' as duration`,
    description: options.description,
  }).transform((text, ctx) => {
    if (text === undefined || text === '') return undefined;
    if (options.zeroWord !== undefined && text === options.zeroWord) return 0;
    try {
      return parseDuration(text);
    } catch (error) {
      if (!isDomainError(error)) throw error;
      addVaultIssue(ctx, text, wrap(error.message, text));
      return undefined;
    }
  });
}

/** A bool of the sys/mounts and sys/auth JSON bodies (strconv.ParseBool rules). */
export const mountFlag = (description?: string) =>
  weakBool({
    strictNumbers: true,
    message: ({ field }) => `invalid value for '${field}': expected a boolean`,
    description,
  });

/** A string that must be one of `allowed`, else Vault's text for it. */
export function oneOf(allowed: readonly string[], text: (value: string) => string, description?: string) {
  return weakString({ description }).transform((value, ctx) => {
    if (value !== undefined && !allowed.includes(value)) addVaultIssue(ctx, value, text(value));
    return value;
  });
}
