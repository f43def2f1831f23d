import { z } from 'zod';
import { isDomainError } from '../domain-errors';
import { parseDuration } from './duration';
import { isJsonObject, setOwn, type JsonObject } from './json-object';
import { addVaultIssue, type IssueSink } from './request-errors';

/**
 * Request fields decoded the way Vault's framework decodes them (mapstructure WeakDecode,
 * framework.FieldData): "3" and 3 are the same int, "true" and true the same bool, a list may be a
 * comma-separated string, a duration "1h30m" or a number of seconds. Every contract builds its
 * fields from these, so the rules and error texts live here once.
 *
 * A JSON null means "not set", exactly like an absent field (the field's default, else
 * undefined): Vault clients such as hvac send null for every field they leave unset.
 *
 * Errors are Vault's "Field validation failed" texts by default; a contract whose Vault handler
 * words them differently passes `message`. Values are echoed only by the scalar decoders, which
 * are never used for secret data.
 */

/** What a `message` function gets to word a failure: the field, the value, the default reason. */
export interface FieldFailure {
  field: string;
  input: unknown;
  /** Vault's reason, e.g. "cannot parse 'x' as int: strconv.ParseInt: parsing \"x\": invalid syntax" */
  reason: string;
  /** "type": the JSON value has the wrong type; "value": the right type, but it does not parse */
  cause: 'type' | 'value';
}

export interface WeakOptions<T> {
  /** value when the field is absent or null */
  default?: T;
  /** the whole error text; default `Field validation failed: error converting input <v> for field "<f>": <reason>` */
  message?: (failure: FieldFailure) => string;
  description?: string;
}

type Fail = (reason: string, cause: FieldFailure['cause']) => never;
type Decode<T> = (value: unknown, fail: Fail) => T;

/** A weak field's schema: accepts any JSON (documented by `doc`), outputs T. */
export type WeakField<T> = z.ZodPipe<z.ZodOptional<z.ZodUnknown>, z.ZodTransform<T, unknown>>;

const shown = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

export const fieldValidationFailed = ({ field, input, reason }: FieldFailure): string =>
  `Field validation failed: error converting input ${shown(input)} for field "${field}": ${reason}`;

/** mapstructure's name for a JSON value's Go kind, as its errors print it. */
export function goKind(value: unknown): string {
  if (Array.isArray(value)) return 'slice';
  if (value === null) return 'invalid';
  if (typeof value === 'object') return 'map';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float64';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}

/** Thrown inside a decoder to stop at the first bad value; weakField turns it into an issue. */
class FieldFailed extends Error {
  constructor(readonly text: string | ((field: string) => string)) {
    super('field validation failed');
  }
}

function weakField<T>(
  decode: Decode<T>,
  options: WeakOptions<T> & { defaultMessage?: (failure: FieldFailure) => string },
  doc: Record<string, unknown>,
): WeakField<T | undefined> {
  const word = options.message ?? options.defaultMessage ?? fieldValidationFailed;
  const input = z
    .unknown()
    .optional()
    .meta({ ...doc, ...(options.description ? { description: options.description } : {}) });
  return input.transform((value: unknown, ctx: IssueSink) => {
    if (value === undefined || value === null) return options.default;
    try {
      return decode(value, (reason, cause) => {
        throw new FieldFailed((field) => word({ field, input: value, reason, cause }));
      });
    } catch (error) {
      if (!(error instanceof FieldFailed)) throw error;
      addVaultIssue(ctx, value, error.text);
      return z.NEVER;
    }
  });
}

/** The weak field's output type: T, or T | undefined when it has no default. */
type Out<T, O> = O extends { default: T } ? T : T | undefined;

const INT_PATTERN = /^[+-]?\d+$/;

export interface IntOptions extends WeakOptions<number> {
  /** accept true/false as 1/0 (mapstructure does; some Vault handlers parse strictly) */
  bools?: boolean;
}

function decodeInt(value: unknown, fail: Fail, bools: boolean): number {
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value)) return value;
    return fail(`cannot parse '${String(value)}' as int`, 'value');
  }
  if (typeof value === 'boolean' && bools) return value ? 1 : 0;
  if (typeof value === 'string') {
    const text = value.trim();
    if (text === '') return 0;
    if (INT_PATTERN.test(text)) {
      const parsed = Number(text);
      if (Number.isSafeInteger(parsed)) return parsed;
    }
    return fail(
      `cannot parse '${value}' as int: strconv.ParseInt: parsing ${JSON.stringify(value)}: invalid syntax`,
      'value',
    );
  }
  return fail(`expected an integer, got '${typeof value}'`, 'type');
}

/** TypeInt: a JSON integer or a decimal string ("" is 0). */
export function weakInt<O extends IntOptions>(options?: O): WeakField<Out<number, O>> {
  const bools = options?.bools ?? false;
  return weakField((v, fail) => decodeInt(v, fail, bools), options ?? {}, {
    anyOf: [{ type: 'integer' }, { type: 'string' }],
  }) as WeakField<Out<number, O>>;
}

const TRUE_TEXTS = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE_TEXTS = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

export interface BoolOptions extends WeakOptions<boolean> {
  /** numbers other than 0 and 1 are refused (strconv.ParseBool) rather than read as true */
  strictNumbers?: boolean;
}

/** TypeBool: a JSON boolean, a number (non-zero is true), or what Go's strconv.ParseBool accepts. */
export function weakBool<O extends BoolOptions>(options?: O): WeakField<Out<boolean, O>> {
  const strict = options?.strictNumbers ?? false;
  const decode: Decode<boolean> = (value, fail) => {
    if (typeof value === 'boolean') return value;
    if (typeof value === 'number' && (!strict || value === 0 || value === 1)) return value !== 0;
    if (typeof value === 'string') {
      if (TRUE_TEXTS.has(value)) return true;
      if (FALSE_TEXTS.has(value) || value === '') return false;
    }
    return fail(`cannot parse '${String(value)}' as bool`, typeof value === 'string' ? 'value' : 'type');
  };
  return weakField(decode, options ?? {}, {
    anyOf: [{ type: 'boolean' }, { type: 'string' }],
  }) as WeakField<Out<boolean, O>>;
}

/**
 * TypeDurationSecond, in whole seconds: a number of seconds, an integer string, "<n>d" or a Go
 * duration ("1h30m"). A malformed string fails with Go's own text ("time: invalid duration ...").
 */
export function weakDuration<O extends WeakOptions<number>>(options?: O): WeakField<Out<number, O>> {
  const decode: Decode<number> = (value, fail) => {
    if (typeof value !== 'string' && typeof value !== 'number') return fail('not a duration', 'type');
    try {
      return parseDuration(value);
    } catch (error) {
      // parseDuration fails with Go's own text ("time: invalid duration \"soon\"").
      if (isDomainError(error)) return fail(error.message, 'value');
      throw error;
    }
  };
  return weakField(
    decode,
    { defaultMessage: durationFailed, ...options },
    {
      anyOf: [{ type: 'string' }, { type: 'integer' }],
      description: 'a duration such as "1h30m", or a number of seconds',
    },
  ) as WeakField<Out<number, O>>;
}

/** mapstructure's text for a value of the wrong shape (no value echoed). */
const notConvertible = ({ field, reason }: FieldFailure): string =>
  `Field validation failed: error converting input for field "${field}": ${reason}`;

/** A malformed duration answers Go's text alone, as Vault's ParseDurationSecond does. */
const durationFailed = (failure: FieldFailure): string =>
  failure.cause === 'value' ? failure.reason : notConvertible(failure);

/** TypeString: strings as they are, numbers and booleans as their text. */
export function weakString<O extends WeakOptions<string>>(options?: O): WeakField<Out<string, O>> {
  const decode: Decode<string> = (value, fail) => {
    if (typeof value === 'string') return value;
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    return fail(`'' expected type 'string', got unconvertible type '${goKind(value)}'`, 'type');
  };
  return weakField(decode, { defaultMessage: notConvertible, ...options }, { type: 'string' }) as WeakField<
    Out<string, O>
  >;
}

const splitList = (text: string): string[] =>
  text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');

/** TypeCommaStringSlice: a JSON array (scalars as text) or a comma-separated string. */
export function weakStringList<O extends WeakOptions<string[]>>(options?: O): WeakField<Out<string[], O>> {
  const decode: Decode<string[]> = (value, fail) => {
    if (typeof value === 'string') return splitList(value);
    if (typeof value === 'number' || typeof value === 'boolean') return [String(value)];
    if (!Array.isArray(value))
      return fail(`'' expected type 'string', got unconvertible type '${goKind(value)}'`, 'type');
    return value.map((item) => {
      if (typeof item === 'string') return item.trim();
      if (typeof item === 'number' || typeof item === 'boolean') return String(item);
      return fail(`'' expected type 'string', got unconvertible type '${goKind(item)}'`, 'type');
    });
  };
  return weakField(
    decode,
    { defaultMessage: notConvertible, ...options },
    {
      anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'string' }],
      description: 'a list, or a comma-separated string',
    },
  ) as WeakField<Out<string[], O>>;
}

/** TypeCommaIntSlice: a JSON array of integers (or numeric strings), a comma-separated string, or one integer. */
export function weakIntList<O extends WeakOptions<number[]>>(options?: O): WeakField<Out<number[], O>> {
  const decode: Decode<number[]> = (value, fail) => {
    if (Array.isArray(value)) return value.map((item) => decodeInt(item, fail, false));
    if (typeof value === 'string') return splitList(value).map((part) => decodeInt(part, fail, false));
    return [decodeInt(value, fail, false)];
  };
  return weakField(decode, options ?? {}, {
    anyOf: [{ type: 'array', items: { type: 'integer' } }, { type: 'string' }, { type: 'integer' }],
  }) as WeakField<Out<number[], O>>;
}

/** TypeMap: any JSON object, passed through as received (no copy: "__proto__" stays a key). */
export function weakMap<O extends WeakOptions<JsonObject>>(options?: O): WeakField<Out<JsonObject, O>> {
  const decode: Decode<JsonObject> = (value, fail) =>
    isJsonObject(value) ? value : fail(`'' expected a map, got '${goKind(value)}'`, 'type');
  return weakField(
    decode,
    { defaultMessage: notConvertible, ...options },
    {
      type: 'object',
      additionalProperties: true,
    },
  ) as WeakField<Out<JsonObject, O>>;
}

export interface StringMapOptions extends WeakOptions<Record<string, string>> {
  /** a null value: "" (mapstructure) or the key left out */
  nulls?: 'empty' | 'skip';
  /** a boolean value: "1"/"0" (mapstructure's weak bool to string) or "true"/"false" */
  bools?: 'digit' | 'text';
  /** the error text for a value that is not a scalar */
  valueMessage?: (failure: FieldFailure & { key: string }) => string;
}

type ScalarText = (key: string, value: unknown) => string | null;

/** The map's entries as text (null for a null value), or a failure for a value that is not a scalar. */
function stringEntries(
  value: JsonObject,
  bools: 'digit' | 'text',
  onBad: (key: string, item: unknown) => never,
): Array<[string, string | null]> {
  const text: ScalarText = (key, item) => {
    if (item === null || item === undefined) return null;
    if (typeof item === 'string') return item;
    if (typeof item === 'number') return String(item);
    if (typeof item === 'boolean') return bools === 'digit' ? (item ? '1' : '0') : String(item);
    return onBad(key, item);
  };
  return Object.keys(value).map((key) => [key, text(key, value[key])]);
}

function stringMapDecoder<V>(
  options: StringMapOptions | undefined,
  onNull: (key: string) => V | undefined,
): Decode<Record<string, string | V>> {
  const bools = options?.bools ?? 'digit';
  const valueMessage = options?.valueMessage;
  return (value, fail) => {
    if (!isJsonObject(value)) return fail(`'' expected a map, got '${goKind(value)}'`, 'type');
    const onBad = (key: string, item: unknown): never => {
      if (valueMessage)
        throw new FieldFailed((field) =>
          valueMessage({ field, key, input: item, reason: '', cause: 'type' }),
        );
      return fail(`'' expected type 'string', got unconvertible type '${goKind(item)}'`, 'type');
    };
    const out: Record<string, string | V> = {};
    for (const [key, text] of stringEntries(value, bools, onBad)) {
      const entry = text === null ? onNull(key) : text;
      if (entry !== undefined) setOwn(out, key, entry);
    }
    return out;
  };
}

const STRING_MAP_DOC = { type: 'object', additionalProperties: { type: 'string' } };

/**
 * TypeKVPairs (map[string]string): scalar values become text. The result has no prototype
 * surprises: every key, "__proto__" included, is an own property.
 */
export function weakStringMap<O extends StringMapOptions>(
  options?: O,
): WeakField<Out<Record<string, string>, O>> {
  const nulls = options?.nulls ?? 'empty';
  const decode = stringMapDecoder<string>(options, () => (nulls === 'skip' ? undefined : ''));
  return weakField(decode, { defaultMessage: notConvertible, ...options }, STRING_MAP_DOC) as WeakField<
    Out<Record<string, string>, O>
  >;
}

/** A JSON merge patch of a map[string]string: scalars become text, a null value removes its key. */
export function weakStringMapPatch<O extends Omit<StringMapOptions, 'nulls' | 'default'>>(
  options?: O,
): WeakField<Record<string, string | null> | undefined> {
  const decode = stringMapDecoder<null>(options, () => null);
  return weakField(decode, { defaultMessage: notConvertible, ...options }, STRING_MAP_DOC);
}
