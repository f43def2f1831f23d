import { types, type CustomTypesConfig } from 'pg';

type TypeId = Parameters<typeof types.getTypeParser>[0];

/**
 * Same value mapping as @coffer/event-store's createPgDb (int8 and integral numeric as JS number,
 * throwing beyond 2^53; timestamptz as Date), so a test database handle reads rows exactly like
 * the services do. Kept here because @coffer/event-store's own tests depend on this lib.
 */
const INT8 = 20;
const NUMERIC = 1700;
const INT8_ARRAY = 1016;
const NUMERIC_ARRAY = 1231;

function toSafeInteger(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new RangeError('integer value is beyond Number.MAX_SAFE_INTEGER');
  return n;
}

const parseNumeric = (text: string): number => (/^-?\d+$/.test(text) ? toSafeInteger(text) : Number(text));

function mapArray(value: unknown, parse: (text: string) => number): unknown {
  if (Array.isArray(value)) return value.map((v) => mapArray(v, parse));
  return typeof value === 'string' ? parse(value) : value;
}

export const pgTypes: CustomTypesConfig = {
  getTypeParser: ((oid: TypeId, format?: 'text' | 'binary') => {
    if (format === 'binary') return types.getTypeParser(oid, format);
    switch (oid as number) {
      case INT8:
        return toSafeInteger;
      case NUMERIC:
        return parseNumeric;
      case INT8_ARRAY:
      case NUMERIC_ARRAY: {
        const parseArray = types.getTypeParser(oid, 'text') as (text: string) => unknown;
        const parse = (oid as number) === INT8_ARRAY ? toSafeInteger : parseNumeric;
        return (text: string) => mapArray(parseArray(text), parse);
      }
      default:
        return types.getTypeParser(oid, format);
    }
  }) as CustomTypesConfig['getTypeParser'],
};
