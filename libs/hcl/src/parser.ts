import type { HclAttribute, HclBlock, HclBody, HclExpression, HclItem, Position } from './ast';
import { HclParseError } from './hcl-errors';
import { Lexer, describeToken, type Token } from './lexer';

/** Nesting guard: deeply nested input must fail with a parse error, never a stack overflow. */
const MAX_DEPTH = 256;

class Parser {
  private readonly lexer: Lexer;
  private tok: Token;
  private depth = 0;

  constructor(src: string) {
    this.lexer = new Lexer(src);
    this.tok = this.lexer.next();
  }

  private take(): Token {
    const t = this.tok;
    this.tok = this.lexer.next();
    return t;
  }

  private fail(reason: string, pos: Position = this.tok.pos): never {
    throw new HclParseError(reason, pos);
  }

  private enter(pos: Position): void {
    if (++this.depth > MAX_DEPTH) this.fail(`nesting deeper than ${MAX_DEPTH} levels`, pos);
  }

  /** Top level: items until end of input. */
  parseFile(): HclBody {
    const pos = this.tok.pos;
    const items = this.parseItems(undefined);
    return { type: 'Body', items, pos };
  }

  /** Items of a body; `open` is the '{' that started it (undefined at top level). */
  private parseItems(open: Token | undefined): HclItem[] {
    const items: HclItem[] = [];
    for (;;) {
      const t = this.tok;
      if (t.type === 'eof') {
        if (open) this.fail(`expected '}' to close the '{' opened at ${open.pos.line}:${open.pos.column}`);
        return items;
      }
      if (t.type === '}') {
        if (!open) this.fail("unexpected '}'");
        return items;
      }
      items.push(this.parseItem());
      if (this.tok.type === ',') this.take();
    }
  }

  private parseItem(): HclItem {
    const keyTok = this.tok;
    if (keyTok.type !== 'ident' && keyTok.type !== 'string') {
      this.fail(`expected a key, found ${describeToken(keyTok)}`);
    }
    this.take();
    const labels: string[] = [];
    while (this.tok.type === 'ident' || this.tok.type === 'string') labels.push(this.take().text);
    const t = this.tok;
    if (t.type === '=' && labels.length === 0) {
      this.take();
      const attr: HclAttribute = {
        type: 'Attribute',
        key: keyTok.text,
        value: this.parseValue(),
        pos: keyTok.pos,
      };
      return attr;
    }
    if (t.type === '{') {
      const block: HclBlock = {
        type: 'Block',
        key: keyTok.text,
        labels,
        body: this.parseBraced(),
        pos: keyTok.pos,
      };
      return block;
    }
    if (labels.length > 0) this.fail(`expected '{' after block labels, found ${describeToken(t)}`);
    this.fail(`expected '=' or '{' after key, found ${describeToken(t)}`);
  }

  /** `{ items }` starting at the current '{' token. */
  private parseBraced(): HclBody {
    const open = this.take();
    this.enter(open.pos);
    const items = this.parseItems(open);
    this.take(); // '}'
    this.depth--;
    return { type: 'Body', items, pos: open.pos };
  }

  private parseValue(): HclExpression {
    const t = this.tok;
    switch (t.type) {
      case 'string':
        this.take();
        return { type: 'String', value: t.text, pos: t.pos };
      case 'heredoc':
        this.take();
        return t.heredoc
          ? { type: 'String', value: t.text, heredoc: t.heredoc, pos: t.pos }
          : { type: 'String', value: t.text, pos: t.pos };
      case 'number':
        this.take();
        return { type: 'Number', value: t.num ?? Number(t.text), raw: t.text, pos: t.pos };
      case 'ident':
        if (t.text === 'true' || t.text === 'false') {
          this.take();
          return { type: 'Bool', value: t.text === 'true', pos: t.pos };
        }
        return this.fail(`unexpected identifier '${t.text}' (strings must be quoted)`);
      case '[':
        return this.parseList();
      case '{': {
        const body = this.parseBraced();
        return { type: 'Object', body, pos: t.pos };
      }
      case 'eof':
        return this.fail('expected a value, found end of input');
      case '}':
      case ']':
      case '=':
      case ',':
      case ':':
        return this.fail(`expected a value, found ${describeToken(t)}`);
    }
  }

  private parseList(): HclExpression {
    const open = this.take();
    this.enter(open.pos);
    const items: HclExpression[] = [];
    for (;;) {
      if (this.tok.type === ']') break;
      if (this.tok.type === 'eof') {
        this.fail(`expected ']' to close the '[' opened at ${open.pos.line}:${open.pos.column}`);
      }
      items.push(this.parseValue());
      const sep = this.tok;
      if (sep.type === ',') {
        this.take();
        continue;
      }
      if (sep.type !== ']') this.fail(`expected ',' or ']' after list element, found ${describeToken(sep)}`);
    }
    this.take();
    this.depth--;
    return { type: 'List', items, pos: open.pos };
  }

  /** The JSON form: one value, strict JSON syntax (string keys, ':' and ',' separators). */
  parseJsonDocument(): HclExpression {
    const value = this.parseJsonValue();
    if (this.tok.type !== 'eof') this.fail(`unexpected ${describeToken(this.tok)} after the JSON value`);
    return value;
  }

  private parseJsonValue(): HclExpression {
    const t = this.tok;
    switch (t.type) {
      case 'string':
        this.take();
        return { type: 'String', value: t.text, pos: t.pos };
      case 'number':
        this.take();
        return { type: 'Number', value: t.num ?? Number(t.text), raw: t.text, pos: t.pos };
      case 'ident':
        this.take();
        if (t.text === 'true' || t.text === 'false')
          return { type: 'Bool', value: t.text === 'true', pos: t.pos };
        if (t.text === 'null') return { type: 'Null', pos: t.pos };
        return this.fail(`unexpected identifier '${t.text}'`, t.pos);
      case '[':
        return this.parseJsonArray();
      case '{':
        return this.parseJsonObject();
      case 'heredoc':
      case 'eof':
      case '}':
      case ']':
      case '=':
      case ',':
      case ':':
        return this.fail(`expected a JSON value, found ${describeToken(t)}`);
    }
  }

  private parseJsonArray(): HclExpression {
    const open = this.take();
    this.enter(open.pos);
    const items: HclExpression[] = [];
    if (this.tok.type !== ']') {
      for (;;) {
        items.push(this.parseJsonValue());
        const sep = this.take();
        if (sep.type === ']') break;
        if (sep.type !== ',') this.fail(`expected ',' or ']' in array, found ${describeToken(sep)}`, sep.pos);
      }
    } else {
      this.take();
    }
    this.depth--;
    return { type: 'List', items, pos: open.pos };
  }

  private parseJsonObject(): HclExpression {
    const open = this.take();
    this.enter(open.pos);
    const items: HclItem[] = [];
    if (this.tok.type !== '}') {
      for (;;) {
        const key = this.take();
        if (key.type !== 'string') this.fail(`expected a string key, found ${describeToken(key)}`, key.pos);
        const colon = this.take();
        if (colon.type !== ':')
          this.fail(`expected ':' after object key, found ${describeToken(colon)}`, colon.pos);
        items.push({ type: 'Attribute', key: key.text, value: this.parseJsonValue(), pos: key.pos });
        const sep = this.take();
        if (sep.type === '}') break;
        if (sep.type !== ',')
          this.fail(`expected ',' or '}' in object, found ${describeToken(sep)}`, sep.pos);
      }
    } else {
      this.take();
    }
    this.depth--;
    return { type: 'Object', body: { type: 'Body', items, pos: open.pos }, pos: open.pos };
  }
}

/**
 * Parses HCL (v1, as used by Vault policies and Vault/Boundary server config files) into an
 * order-preserving tree. Throws HclParseError (with 1-based line and column) on any syntax error.
 */
export function parseHcl(text: string): HclBody {
  return new Parser(text).parseFile();
}

/**
 * Parses the JSON form of an HCL document into the same expression tree (objects become Object
 * expressions whose body holds one Attribute per member), so callers handle both forms alike and
 * keep positions for their errors. Throws HclParseError.
 */
export function parseHclJson(text: string): HclExpression {
  return new Parser(text).parseJsonDocument();
}

/** True when the text looks like the JSON form (first significant character is '{'). */
export function looksLikeJson(text: string): boolean {
  return /^[\s\uFEFF]*\{/.test(text);
}
