import { types, type CustomTypesConfig } from 'pg';

/**
 * One value mapping for both dialects: int8 and integral numeric (count(*), sum()) read back as JS
 * number and throw beyond Number.MAX_SAFE_INTEGER rather than silently losing precision;
 * non-integral numeric becomes a float; timestamptz is a Date; bytea a Buffer.
 */
type TypeId = Parameters<typeof types.getTypeParser>[0];

export const OID = {
  BYTEA: 17,
  INT8: 20,
  NUMERIC: 1700,
  INT8_ARRAY: 1016,
  NUMERIC_ARRAY: 1231,
} as const;

export function parseSafeInteger(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new RangeError('integer value is beyond Number.MAX_SAFE_INTEGER');
  return n;
}

export function parseNumeric(text: string): number {
  return /^-?\d+$/.test(text) ? parseSafeInteger(text) : Number(text);
}

function mapArray(value: unknown, parse: (text: string) => number): unknown {
  if (Array.isArray(value)) return value.map((v) => mapArray(v, parse));
  return typeof value === 'string' ? parse(value) : value;
}

/** node-postgres: per-pool parsers (the global pg.types registry is left alone). */
export const pgTypeParsers: CustomTypesConfig = {
  getTypeParser: ((oid: TypeId, format?: 'text' | 'binary') => {
    if (format === 'binary') return types.getTypeParser(oid, format);
    switch (oid as number) {
      case OID.INT8:
        return parseSafeInteger;
      case OID.NUMERIC:
        return parseNumeric;
      case OID.INT8_ARRAY:
      case OID.NUMERIC_ARRAY: {
        const parseArray = types.getTypeParser(oid, 'text') as (text: string) => unknown;
        const parse = (oid as number) === OID.INT8_ARRAY ? parseSafeInteger : parseNumeric;
        return (text: string) => mapArray(parseArray(text), parse);
      }
      default:
        return types.getTypeParser(oid, format);
    }
  }) as CustomTypesConfig['getTypeParser'],
};

/**
 * PGlite: its array parsing reuses the element parser, so scalars suffice. Its defaults differ
 * from pg (int8 as bigint beyond 2^53, bytea as Uint8Array), hence the overrides.
 */
export const pgliteParsers: Record<number, (text: string) => unknown> = {
  [OID.INT8]: parseSafeInteger,
  [OID.NUMERIC]: parseNumeric,
  [OID.BYTEA]: (text) => Buffer.from(text.startsWith('\\x') ? text.slice(2) : text, 'hex'),
};
