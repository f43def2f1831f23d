import type { Position } from './ast';
import { HclParseError } from './hcl-errors';

export type TokenType =
  'ident' | 'string' | 'heredoc' | 'number' | '{' | '}' | '[' | ']' | '=' | ',' | ':' | 'eof';

export interface Token {
  type: TokenType;
  /** decoded text for ident / string / heredoc, the lexeme for numbers */
  text: string;
  /** numbers only */
  num?: number;
  heredoc?: { marker: string; indented: boolean };
  pos: Position;
}

const PUNCT: Record<string, TokenType> = {
  '{': '{',
  '}': '}',
  '[': '[',
  ']': ']',
  '=': '=',
  ',': ',',
  ':': ':',
};

const IDENT_START = /[\p{L}_]/u;
const IDENT_PART = /[\p{L}\p{N}_.-]/u;
const DIGIT = /[0-9]/;
const HEX = /^[0-9a-fA-F]+$/;
const NUMBER_RE = /^-?(?:0[xX][0-9a-fA-F]+|[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)/;
const HEREDOC_MARKER = /^[A-Za-z_][A-Za-z0-9_-]*/;

const SIMPLE_ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  a: '\x07',
  b: '\b',
  f: '\f',
  v: '\v',
  '\\': '\\',
  '"': '"',
  '/': '/',
};

/**
 * An on-demand tokenizer. Newlines are plain whitespace in HCL v1 (items are separated by
 * optional commas), so there is no newline token. `${...}` is not interpreted: it is kept
 * verbatim inside the string, and a string always ends at the first unescaped quote.
 */
export class Lexer {
  private offset = 0;
  private line = 1;
  private column = 1;

  constructor(private readonly src: string) {}

  position(): Position {
    return { line: this.line, column: this.column, offset: this.offset };
  }

  next(): Token {
    this.skipTrivia();
    const pos = this.position();
    const ch = this.src[this.offset];
    if (ch === undefined) return { type: 'eof', text: '', pos };
    const punct = PUNCT[ch];
    if (punct) {
      this.advance();
      return { type: punct, text: ch, pos };
    }
    if (ch === '"') return this.readString(pos);
    if (ch === '<' && this.src[this.offset + 1] === '<') return this.readHeredoc(pos);
    if (DIGIT.test(ch) || (ch === '-' && DIGIT.test(this.src[this.offset + 1] ?? ''))) {
      return this.readNumber(pos);
    }
    if (IDENT_START.test(this.peekCodePoint())) return this.readIdent(pos);
    throw new HclParseError(`illegal character ${describeChar(this.peekCodePoint())}`, pos);
  }

  private peekCodePoint(): string {
    const cp = this.src.codePointAt(this.offset);
    return cp === undefined ? '' : String.fromCodePoint(cp);
  }

  /** Moves over one code point, keeping line and column up to date. */
  private advance(): string {
    const cp = this.src.codePointAt(this.offset);
    if (cp === undefined) return '';
    const s = String.fromCodePoint(cp);
    this.offset += s.length;
    if (s === '\n') {
      this.line += 1;
      this.column = 1;
    } else {
      this.column += 1;
    }
    return s;
  }

  private skipTrivia(): void {
    for (;;) {
      const ch = this.src[this.offset];
      if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r' || ch === '\uFEFF') {
        this.advance();
      } else if (ch === '#' || (ch === '/' && this.src[this.offset + 1] === '/')) {
        while (this.offset < this.src.length && this.src[this.offset] !== '\n') this.advance();
      } else if (ch === '/' && this.src[this.offset + 1] === '*') {
        const start = this.position();
        const end = this.src.indexOf('*/', this.offset + 2);
        if (end < 0) throw new HclParseError('unterminated comment', start);
        while (this.offset < end + 2) this.advance();
      } else {
        return;
      }
    }
  }

  private readIdent(pos: Position): Token {
    let text = this.advance();
    while (this.offset < this.src.length && IDENT_PART.test(this.peekCodePoint())) text += this.advance();
    return { type: 'ident', text, pos };
  }

  private readNumber(pos: Position): Token {
    const m = NUMBER_RE.exec(this.src.slice(this.offset, this.offset + 512));
    const raw = m?.[0] ?? '';
    const after = this.src.codePointAt(this.offset + raw.length);
    if (!m || (after !== undefined && IDENT_PART.test(String.fromCodePoint(after)))) {
      let bad = '';
      let i = this.offset;
      while (i < this.src.length && /[\p{L}\p{N}_.+-]/u.test(this.src[i] ?? '')) bad += this.src[i++];
      throw new HclParseError(`invalid number ${JSON.stringify(bad)}`, pos);
    }
    for (let i = 0; i < raw.length; i++) this.advance();
    const negative = raw.startsWith('-');
    const body = negative ? raw.slice(1) : raw;
    const magnitude = /^0[xX]/.test(body) ? parseInt(body.slice(2), 16) : Number(body);
    if (!Number.isFinite(magnitude)) throw new HclParseError(`number out of range ${raw}`, pos);
    return { type: 'number', text: raw, num: negative ? -magnitude : magnitude, pos };
  }

  private readString(pos: Position): Token {
    this.advance();
    let out = '';
    for (;;) {
      const ch = this.src[this.offset];
      if (ch === undefined || ch === '\n') throw new HclParseError('unterminated string', pos);
      if (ch === '"') {
        this.advance();
        return { type: 'string', text: out, pos };
      }
      if (ch === '\\') {
        out += this.readEscape();
        continue;
      }
      out += this.advance();
    }
  }

  private readEscape(): string {
    const pos = this.position();
    this.advance();
    const c = this.src[this.offset];
    if (c === undefined || c === '\n') throw new HclParseError('unterminated string', pos);
    const simple = SIMPLE_ESCAPES[c];
    if (simple !== undefined) {
      this.advance();
      return simple;
    }
    if (c === 'u' || c === 'U') {
      const len = c === 'u' ? 4 : 8;
      const hex = this.src.slice(this.offset + 1, this.offset + 1 + len);
      if (hex.length !== len || !HEX.test(hex)) {
        throw new HclParseError(`invalid unicode escape sequence '\\${c}${hex}'`, pos);
      }
      const cp = parseInt(hex, 16);
      if (cp > 0x10ffff) throw new HclParseError(`invalid unicode code point '\\${c}${hex}'`, pos);
      for (let i = 0; i <= len; i++) this.advance();
      return String.fromCodePoint(cp);
    }
    throw new HclParseError(`invalid escape sequence '\\${this.peekCodePoint()}'`, pos);
  }

  private readHeredoc(pos: Position): Token {
    const headerStart = this.offset + 2;
    const indented = this.src[headerStart] === '-';
    const markerStart = indented ? headerStart + 1 : headerStart;
    const marker = HEREDOC_MARKER.exec(this.src.slice(markerStart, markerStart + 256))?.[0];
    if (!marker) throw new HclParseError('heredoc marker expected after "<<"', pos);
    let p = markerStart + marker.length;
    if (this.src[p] === '\r') p++;
    if (this.src[p] !== '\n') throw new HclParseError('heredoc marker must be followed by a newline', pos);
    const closing = new RegExp(`^[ \\t]*${marker}\\r*$`);
    const lines: string[] = [];
    let lineStart = p + 1;
    for (;;) {
      if (lineStart > this.src.length) {
        throw new HclParseError(`unterminated heredoc: missing closing marker '${marker}'`, pos);
      }
      const nl = this.src.indexOf('\n', lineStart);
      const lineEnd = nl < 0 ? this.src.length : nl;
      const line = this.src.slice(lineStart, lineEnd);
      if (closing.test(line)) {
        while (this.offset < lineEnd) this.advance();
        return {
          type: 'heredoc',
          text: heredocValue(lines, line, indented),
          heredoc: { marker, indented },
          pos,
        };
      }
      lines.push(line.endsWith('\r') ? line.slice(0, -1) : line);
      if (nl < 0) throw new HclParseError(`unterminated heredoc: missing closing marker '${marker}'`, pos);
      lineStart = nl + 1;
    }
  }
}

/**
 * HCL v1 semantics: the value is every line between the markers, each followed by "\n". With
 * `<<-`, the whitespace before the closing marker is removed from every line, but only when all
 * lines start with it (otherwise the text is kept as written).
 */
function heredocValue(lines: string[], closingLine: string, indented: boolean): string {
  if (lines.length === 0) return '';
  if (indented) {
    const prefix = /^[ \t]*/.exec(closingLine)?.[0] ?? '';
    if (prefix && lines.every((l) => l.startsWith(prefix))) {
      return lines.map((l) => l.slice(prefix.length)).join('\n') + '\n';
    }
  }
  return lines.join('\n') + '\n';
}

export function describeChar(ch: string): string {
  const cp = ch.codePointAt(0) ?? 0;
  if (cp < 0x20 || cp === 0x7f) return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  return `'${ch}'`;
}

export function describeToken(t: Token): string {
  switch (t.type) {
    case 'eof':
      return 'end of input';
    case 'ident':
      return `identifier '${t.text}'`;
    case 'string':
      return `string ${JSON.stringify(t.text)}`;
    case 'heredoc':
      return 'heredoc';
    case 'number':
      return `number ${t.text}`;
    case '{':
    case '}':
    case '[':
    case ']':
    case '=':
    case ',':
    case ':':
      return `'${t.type}'`;
  }
}
