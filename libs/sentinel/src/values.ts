/** Sentinel's `undefined`: what a missing key or an unset value evaluates to. */
export const UNDEFINED: unique symbol = Symbol('sentinel.undefined');
export type Undefined = typeof UNDEFINED;

/** A function of an import or a builtin; undefined arguments make the result undefined. */
export class SentinelFunction {
  constructor(
    readonly name: string,
    readonly call: (args: Value[]) => Value,
  ) {}
}

export type Scalar = string | number | boolean | null;
export interface MapValue {
  [key: string]: Value;
}
export type Value = Scalar | Value[] | MapValue | Undefined | SentinelFunction;

export function isMap(v: Value): v is MapValue {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof SentinelFunction);
}

export function typeName(v: Value): string {
  if (v === UNDEFINED) return 'undefined';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'list';
  if (v instanceof SentinelFunction) return 'func';
  if (typeof v === 'object') return 'map';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  return typeof v;
}

/** Own-key lookup: a map key named "__proto__" or "constructor" is data, never the prototype. */
export function mapGet(m: MapValue, key: string): Value {
  return Object.prototype.hasOwnProperty.call(m, key) ? (m[key] as Value) : UNDEFINED;
}

/** Deep equality of Sentinel values; values of different types are never equal. */
export function valuesEqual(a: Value, b: Value): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => valuesEqual(x, b[i] as Value));
  }
  if (isMap(a)) {
    if (!isMap(b)) return false;
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => valuesEqual(mapGet(a, k), mapGet(b, k)));
  }
  return false;
}

/** Converts host data (JSON-like) into Sentinel values; `undefined` fields become Sentinel's undefined. */
export function fromHost(v: unknown): Value {
  if (v === undefined) return UNDEFINED;
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) return v.map(fromHost);
  if (v instanceof SentinelFunction) return v;
  if (typeof v === 'object') {
    // no prototype: a "__proto__" key is an own entry like any other
    const out = Object.create(null) as MapValue;
    for (const k of Object.keys(v)) out[k] = fromHost((v as Record<string, unknown>)[k]);
    return out;
  }
  return UNDEFINED;
}
