import type { HclBody, HclExpression, Position } from './ast';
import { HclParseError } from './hcl-errors';

/**
 * Plain JavaScript view of an HCL body.
 *
 * - `key = value` becomes `obj.key = value` (strings, numbers, booleans, arrays, nested objects;
 *   `null` only from the JSON form).
 * - Blocks become arrays of `{ labels, body }` in source order, repeated blocks appended:
 *
 *   ```hcl
 *   listener "tcp" { address = "127.0.0.1:8200" }
 *   listener "tcp" { address = "127.0.0.1:9203" }
 *   nats { url = "nats://127.0.0.1:4222" }
 *   ```
 *   gives
 *   ```js
 *   { listener: [ { labels: ['tcp'], body: { address: '127.0.0.1:8200' } },
 *                 { labels: ['tcp'], body: { address: '127.0.0.1:9203' } } ],
 *     nats: [ { labels: [], body: { url: 'nats://127.0.0.1:4222' } } ] }
 *   ```
 * - An object literal (`k = { a = 1 }`) is converted with the same rules, so blocks inside it
 *   also become arrays of `{ labels, body }`.
 *
 * A key used twice as an attribute, or both as an attribute and as a block, is an HclParseError
 * pointing at the second occurrence: silently keeping one of them would hide typos in config files.
 */
export type HclPlainValue = string | number | boolean | null | HclPlainValue[] | HclPlainObject;

export interface HclBlockEntry {
  labels: string[];
  body: HclPlainObject;
}

export interface HclPlainObject {
  [key: string]: HclPlainValue | HclBlockEntry[];
}

export function hclToObject(body: HclBody): HclPlainObject {
  const out: HclPlainObject = Object.create(null) as HclPlainObject;
  const kinds = new Map<string, { kind: 'attribute' | 'block'; pos: Position }>();
  for (const item of body.items) {
    const seen = kinds.get(item.key);
    if (item.type === 'Attribute') {
      if (seen) {
        const what =
          seen.kind === 'attribute' ? 'duplicate attribute' : 'attribute has the same name as a block';
        throw new HclParseError(
          `${what} '${item.key}' (first defined at ${seen.pos.line}:${seen.pos.column})`,
          item.pos,
        );
      }
      kinds.set(item.key, { kind: 'attribute', pos: item.pos });
      out[item.key] = expressionToValue(item.value);
      continue;
    }
    if (seen?.kind === 'attribute') {
      throw new HclParseError(
        `block has the same name as attribute '${item.key}' (defined at ${seen.pos.line}:${seen.pos.column})`,
        item.pos,
      );
    }
    if (!seen) kinds.set(item.key, { kind: 'block', pos: item.pos });
    const entry: HclBlockEntry = { labels: [...item.labels], body: hclToObject(item.body) };
    const list = out[item.key] as HclBlockEntry[] | undefined;
    if (list) list.push(entry);
    else out[item.key] = [entry];
  }
  return out;
}

export function expressionToValue(expr: HclExpression): HclPlainValue {
  switch (expr.type) {
    case 'String':
    case 'Number':
    case 'Bool':
      return expr.value;
    case 'Null':
      return null;
    case 'List':
      return expr.items.map(expressionToValue);
    case 'Object':
      return hclToObject(expr.body);
  }
}
