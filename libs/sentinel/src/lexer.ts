import { SentinelParseError, type Position } from './sentinel-errors';

export type TokenType = 'ident' | 'keyword' | 'string' | 'number' | 'punct' | 'eof';

export interface Token {
  type: TokenType;
  /** identifier / keyword / punctuation text; the decoded value of a string */
  text: string;
  num?: number;
  pos: Position;
}

export const KEYWORDS = new Set([
  'import',
  'as',
  'rule',
  'when',
  'and',
  'or',
  'xor',
  'not',
  'is',
  'contains',
  'in',
  'matches',
  'all',
  'any',
  'else',
  'true',
  'false',
  'null',
  'undefined',
]);

// longest first, so "<=" wins over "<"
const PUNCTUATION = [
  '==',
  '!=',
  '<=',
  '>=',
  '<',
  '>',
  '=',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  ',',
  '.',
  ':',
  '+',
  '-',
  '*',
  '/',
  '%',
];

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '"': '"', '\\': '\\', '/': '/' };

/** Splits a policy into tokens; comments are `#`, `//` and `/* … *\/`. */
export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const pos = (at = i): Position => ({ line, column: at - lineStart + 1 });
  const fail = (reason: string, at = i): never => {
    throw new SentinelParseError(reason, pos(at));
  };
  while (i < source.length) {
    const ch = source[i] as string;
    if (ch === '\n') {
      i++;
      line++;
      lineStart = i;
      continue;
    }
    if (ch === ' ' || ch === '\t' || ch === '\r') {
      i++;
      continue;
    }
    if (ch === '#' || source.startsWith('//', i)) {
      while (i < source.length && source[i] !== '\n') i++;
      continue;
    }
    if (source.startsWith('/*', i)) {
      const start = i;
      const end = source.indexOf('*/', i + 2);
      if (end < 0) fail('unterminated comment', start);
      for (; i < end + 2; i++) {
        if (source[i] === '\n') {
          line++;
          lineStart = i + 1;
        }
      }
      continue;
    }
    if (/[A-Za-z_]/.test(ch)) {
      const start = i;
      while (i < source.length && /[A-Za-z0-9_]/.test(source[i] as string)) i++;
      const text = source.slice(start, i);
      tokens.push({ type: KEYWORDS.has(text) ? 'keyword' : 'ident', text, pos: pos(start) });
      continue;
    }
    if (/[0-9]/.test(ch)) {
      const start = i;
      const m = /^(?:0[xX][0-9a-fA-F]+|[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)/.exec(source.slice(i));
      const lexeme = m?.[0] ?? ch;
      i += lexeme.length;
      if (i < source.length && /[A-Za-z_]/.test(source[i] as string)) fail('malformed number', start);
      tokens.push({ type: 'number', text: lexeme, num: Number(lexeme), pos: pos(start) });
      continue;
    }
    if (ch === '"') {
      const start = i;
      i++;
      let text = '';
      for (;;) {
        if (i >= source.length || source[i] === '\n') fail('unterminated string', start);
        const c = source[i] as string;
        if (c === '"') break;
        if (c === '\\') {
          const e = source[i + 1] ?? '';
          if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(source.slice(i + 2, i + 6))) {
            text += String.fromCharCode(parseInt(source.slice(i + 2, i + 6), 16));
            i += 6;
            continue;
          }
          const decoded = ESCAPES[e];
          if (decoded === undefined) fail(`unknown escape sequence \\${e}`, i);
          text += decoded;
          i += 2;
          continue;
        }
        text += c;
        i++;
      }
      i++;
      tokens.push({ type: 'string', text, pos: pos(start) });
      continue;
    }
    if (ch === '`') {
      // raw string: no escapes, may span lines
      const start = i;
      const startPos = pos(start);
      const end = source.indexOf('`', i + 1);
      if (end < 0) fail('unterminated raw string', start);
      const text = source.slice(i + 1, end);
      for (; i <= end; i++) {
        if (source[i] === '\n') {
          line++;
          lineStart = i + 1;
        }
      }
      tokens.push({ type: 'string', text, pos: startPos });
      continue;
    }
    const punct = PUNCTUATION.find((p) => source.startsWith(p, i));
    if (!punct) fail(`unexpected character ${JSON.stringify(ch)}`);
    tokens.push({ type: 'punct', text: punct as string, pos: pos() });
    i += (punct as string).length;
  }
  tokens.push({ type: 'eof', text: '', pos: pos() });
  return tokens;
}
