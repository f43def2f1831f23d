import { types, type CustomTypesConfig } from 'pg';

/**
 * One value mapping for both dialects: int8 and integral numeric (count(*), sum()) read back as JS
 * number and throw beyond Number.MAX_SAFE_INTEGER rather than silently losing precision;
 * non-integral numeric becomes a float; timestamptz is a Date; bytea a Buffer. PGlite applies the
 * same rules inside its worker (pglite-worker.ts).
 */
type TypeId = Parameters<typeof types.getTypeParser>[0];

const OID = {
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

type Parser = (value: string) => unknown;
const builtin = (oid: TypeId, format: 'text' | 'binary' = 'text') =>
  types.getTypeParser(oid, format) as Parser;

/** node-postgres: per-pool parsers (the global pg.types registry is left alone). */
export const pgTypeParsers: CustomTypesConfig = {
  getTypeParser: ((oid: TypeId, format?: 'text' | 'binary'): Parser => {
    if (format === 'binary') return builtin(oid, format);
    switch (oid as number) {
      case OID.INT8:
        return parseSafeInteger;
      case OID.NUMERIC:
        return parseNumeric;
      case OID.INT8_ARRAY:
      case OID.NUMERIC_ARRAY: {
        const parseArray = builtin(oid);
        const parse = (oid as number) === OID.INT8_ARRAY ? parseSafeInteger : parseNumeric;
        return (text: string) => mapArray(parseArray(text), parse);
      }
      default:
        return builtin(oid, format);
    }
  }) as CustomTypesConfig['getTypeParser'],
};
