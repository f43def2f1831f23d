import { SentinelRuntimeError, type Position } from './sentinel-errors';
import { isMap, typeName, valuesEqual, type Value } from './values';

// The binary operators of the language whose meaning depends on the operand types.

export function compare(op: '<' | '<=' | '>' | '>=', a: Value, b: Value, pos: Position): boolean {
  const comparable =
    (typeof a === 'number' && typeof b === 'number') || (typeof a === 'string' && typeof b === 'string');
  if (!comparable) throw new SentinelRuntimeError(`cannot compare ${typeName(a)} ${op} ${typeName(b)}`, pos);
  if (op === '<') return a < b;
  if (op === '<=') return a <= b;
  if (op === '>') return a > b;
  return a >= b;
}

export function contains(collection: Value, item: Value, pos: Position): boolean {
  if (Array.isArray(collection)) return collection.some((x) => valuesEqual(x, item));
  if (isMap(collection)) {
    if (typeof item !== 'string' && typeof item !== 'number' && typeof item !== 'boolean') return false;
    return Object.prototype.hasOwnProperty.call(collection, String(item));
  }
  if (typeof collection === 'string') {
    if (typeof item !== 'string')
      throw new SentinelRuntimeError(`a string can only contain a string, got ${typeName(item)}`, pos);
    return collection.includes(item);
  }
  throw new SentinelRuntimeError(`contains needs a list, map or string, got ${typeName(collection)}`, pos);
}

export function arithmetic(op: string, a: Value, b: Value, pos: Position): Value {
  if (op === '+') {
    if (typeof a === 'string' && typeof b === 'string') return a + b;
    if (Array.isArray(a) && Array.isArray(b)) return [...a, ...b];
  }
  if (typeof a !== 'number' || typeof b !== 'number') {
    throw new SentinelRuntimeError(`cannot apply ${op} to ${typeName(a)} and ${typeName(b)}`, pos);
  }
  switch (op) {
    case '+':
      return a + b;
    case '-':
      return a - b;
    case '*':
      return a * b;
    default: {
      if (b === 0) throw new SentinelRuntimeError('division by zero', pos);
      const ints = Number.isInteger(a) && Number.isInteger(b);
      if (op === '%') return ints ? a % b : a % b;
      return ints ? Math.trunc(a / b) : a / b;
    }
  }
}
