import type { HclBody, HclExpression, HclItem } from './ast';

const IDENT = /^[\p{L}_][\p{L}\p{N}_.-]*$/u;

/**
 * Prints a tree back to HCL text that parseHcl reads into the same tree (positions aside).
 * Strings are always printed as quoted literals (heredocs included); keys that are valid
 * identifiers are printed bare, others quoted. Null (JSON form only) has no HCL spelling and
 * is rejected.
 */
export function printHcl(body: HclBody): string {
  return printItems(body, 0);
}

function printItems(body: HclBody, depth: number): string {
  const pad = '  '.repeat(depth);
  return body.items.map((item) => `${pad}${printItem(item, depth)}\n`).join('');
}

function printItem(item: HclItem, depth: number): string {
  if (item.type === 'Attribute') return `${printKey(item.key)} = ${printExpression(item.value, depth)}`;
  const labels = item.labels.map((l) => ` ${quote(l)}`).join('');
  return `${printKey(item.key)}${labels} ${printBraced(item.body, depth)}`;
}

function printBraced(body: HclBody, depth: number): string {
  if (body.items.length === 0) return '{}';
  return `{\n${printItems(body, depth + 1)}${'  '.repeat(depth)}}`;
}

function printKey(key: string): string {
  return IDENT.test(key) && key !== 'true' && key !== 'false' ? key : quote(key);
}

export function printExpression(expr: HclExpression, depth = 0): string {
  switch (expr.type) {
    case 'String':
      return quote(expr.value);
    case 'Number':
      return expr.raw || String(expr.value);
    case 'Bool':
      return expr.value ? 'true' : 'false';
    case 'Null':
      throw new Error('null has no HCL spelling');
    case 'List':
      return `[${expr.items.map((e) => printExpression(e, depth)).join(', ')}]`;
    case 'Object':
      return printBraced(expr.body, depth);
  }
}

/** A double-quoted HCL string literal; control characters are written as \uXXXX escapes. */
export function quote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (cp < 0x20 || cp === 0x7f || (cp >= 0xd800 && cp <= 0xdfff)) {
      out += `\\u${cp.toString(16).padStart(4, '0')}`;
    } else out += ch;
  }
  return `${out}"`;
}
