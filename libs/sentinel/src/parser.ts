import type { Assignment, BinaryOp, Expr, PolicyAst } from './ast';
import { tokenize, type Token } from './lexer';
import { SentinelParseError, type Position } from './sentinel-errors';

/** The imports Coffer provides (Vault's standard ones that make sense without network access). */
export const KNOWN_IMPORTS = new Set(['time', 'strings', 'sockaddr']);
/** Names the host provides to every policy (Vault's data model). */
export const GLOBAL_NAMES = new Set(['request', 'token', 'identity', 'mfa']);
export const BUILTIN_FUNCTIONS = new Set(['length', 'keys', 'values', 'int', 'float', 'string', 'bool']);

const COMPARISONS = new Set(['==', '!=', '<', '<=', '>', '>=']);

/**
 * Recursive-descent parser of Coffer's Sentinel subset. Precedence, loosest first: `else`,
 * `or`, `xor`, `and`, `not`, comparison (`is`, `==`, `<`, `contains`, `in`, `matches` and their
 * negations), `+ -`, `* / %`, unary `-`, then selectors, indexes and calls.
 */
class Parser {
  private i = 0;
  constructor(private readonly tokens: Token[]) {}

  private get tok(): Token {
    return this.tokens[this.i] as Token;
  }

  private peek(offset = 1): Token {
    return this.tokens[Math.min(this.i + offset, this.tokens.length - 1)] as Token;
  }

  private fail(reason: string, pos: Position = this.tok.pos): never {
    throw new SentinelParseError(reason, pos);
  }

  private describe(t: Token): string {
    if (t.type === 'eof') return 'end of policy';
    if (t.type === 'string') return `string ${JSON.stringify(t.text)}`;
    return JSON.stringify(t.text);
  }

  private is(text: string): boolean {
    const t = this.tok;
    return (t.type === 'punct' || t.type === 'keyword') && t.text === text;
  }

  private accept(text: string): boolean {
    if (!this.is(text)) return false;
    this.i++;
    return true;
  }

  private expect(text: string): Token {
    if (!this.is(text)) this.fail(`expected "${text}", found ${this.describe(this.tok)}`);
    return this.tokens[this.i++] as Token;
  }

  private ident(): Token {
    const t = this.tok;
    if (t.type !== 'ident') this.fail(`expected a name, found ${this.describe(t)}`);
    this.i++;
    return t;
  }

  program(): PolicyAst {
    const imports = new Map<string, string>();
    while (this.is('import')) {
      const at = this.tok.pos;
      this.i++;
      const t = this.tok;
      if (t.type !== 'string') this.fail(`expected an import name in quotes, found ${this.describe(t)}`);
      this.i++;
      if (!KNOWN_IMPORTS.has(t.text)) {
        this.fail(`unknown import ${JSON.stringify(t.text)} (available: time, strings, sockaddr)`, t.pos);
      }
      const alias = this.accept('as') ? this.ident().text : t.text;
      if (imports.has(alias)) this.fail(`import ${JSON.stringify(alias)} declared twice`, at);
      imports.set(alias, t.text);
    }
    const assignments: Assignment[] = [];
    while (this.tok.type !== 'eof') {
      if (this.is('import')) this.fail('imports must come before any other statement');
      const name = this.ident();
      this.expect('=');
      assignments.push({ name: name.text, value: this.expr(), pos: name.pos });
    }
    return { imports, assignments };
  }

  expr(): Expr {
    const value = this.or();
    if (this.is('else')) {
      const pos = this.tok.pos;
      this.i++;
      return { kind: 'else', value, fallback: this.expr(), pos };
    }
    return value;
  }

  private or(): Expr {
    let left = this.xor();
    while (this.is('or')) {
      const pos = this.tok.pos;
      this.i++;
      left = { kind: 'binary', op: 'or', left, right: this.xor(), pos };
    }
    return left;
  }

  private xor(): Expr {
    let left = this.and();
    while (this.is('xor')) {
      const pos = this.tok.pos;
      this.i++;
      left = { kind: 'binary', op: 'xor', left, right: this.and(), pos };
    }
    return left;
  }

  private and(): Expr {
    let left = this.not();
    while (this.is('and')) {
      const pos = this.tok.pos;
      this.i++;
      left = { kind: 'binary', op: 'and', left, right: this.not(), pos };
    }
    return left;
  }

  private not(): Expr {
    if (this.is('not')) {
      const pos = this.tok.pos;
      this.i++;
      return { kind: 'unary', op: 'not', operand: this.not(), pos };
    }
    return this.comparison();
  }

  private comparison(): Expr {
    const left = this.additive();
    const t = this.tok;
    let op: BinaryOp | undefined;
    if (t.type === 'punct' && COMPARISONS.has(t.text)) {
      op = t.text as BinaryOp;
      this.i++;
    } else if (this.is('is')) {
      this.i++;
      op = this.accept('not') ? 'is not' : 'is';
    } else if (this.is('contains') || this.is('in') || this.is('matches')) {
      op = t.text as BinaryOp;
      this.i++;
    } else if (this.is('not')) {
      const next = this.peek();
      if (
        next.type === 'keyword' &&
        (next.text === 'contains' || next.text === 'in' || next.text === 'matches')
      ) {
        this.i += 2;
        op = `not ${next.text}` as BinaryOp;
      }
    }
    if (!op) return left;
    const right = this.additive();
    return { kind: 'binary', op, left, right, pos: t.pos };
  }

  private additive(): Expr {
    let left = this.multiplicative();
    while (this.is('+') || this.is('-')) {
      const t = this.tokens[this.i++] as Token;
      left = { kind: 'binary', op: t.text as BinaryOp, left, right: this.multiplicative(), pos: t.pos };
    }
    return left;
  }

  private multiplicative(): Expr {
    let left = this.unary();
    while (this.is('*') || this.is('/') || this.is('%')) {
      const t = this.tokens[this.i++] as Token;
      left = { kind: 'binary', op: t.text as BinaryOp, left, right: this.unary(), pos: t.pos };
    }
    return left;
  }

  private unary(): Expr {
    if (this.is('-')) {
      const pos = this.tok.pos;
      this.i++;
      return { kind: 'unary', op: '-', operand: this.unary(), pos };
    }
    return this.postfix();
  }

  private postfix(): Expr {
    let e = this.primary();
    for (;;) {
      const t = this.tok;
      if (this.accept('.')) {
        const field = this.tok;
        // keywords are fine as field names (request.data.in)
        if (field.type !== 'ident' && field.type !== 'keyword') {
          this.fail(`expected a field name after ".", found ${this.describe(field)}`);
        }
        this.i++;
        e = { kind: 'selector', target: e, field: field.text, pos: t.pos };
      } else if (this.accept('[')) {
        const index = this.expr();
        this.expect(']');
        e = { kind: 'index', target: e, index, pos: t.pos };
      } else if (this.accept('(')) {
        const args: Expr[] = [];
        if (!this.is(')')) {
          do args.push(this.expr());
          while (this.accept(',') && !this.is(')'));
        }
        this.expect(')');
        e = { kind: 'call', callee: e, args, pos: t.pos };
      } else {
        return e;
      }
    }
  }

  private primary(): Expr {
    const t = this.tok;
    const pos = t.pos;
    if (t.type === 'string') {
      this.i++;
      return { kind: 'literal', value: t.text, pos };
    }
    if (t.type === 'number') {
      this.i++;
      return { kind: 'literal', value: t.num ?? 0, pos };
    }
    if (t.type === 'ident') {
      this.i++;
      return { kind: 'ident', name: t.text, pos };
    }
    if (t.type === 'keyword') {
      switch (t.text) {
        case 'true':
        case 'false':
          this.i++;
          return { kind: 'literal', value: t.text === 'true', pos };
        case 'null':
          this.i++;
          return { kind: 'literal', value: null, pos };
        case 'undefined':
          this.i++;
          return { kind: 'undefined', pos };
        case 'rule':
          return this.rule();
        case 'all':
        case 'any':
          return this.quantifier(t.text);
      }
    }
    if (this.accept('(')) {
      const e = this.expr();
      this.expect(')');
      return e;
    }
    if (this.accept('[')) {
      const items: Expr[] = [];
      if (!this.is(']')) {
        do items.push(this.expr());
        while (this.accept(',') && !this.is(']'));
      }
      this.expect(']');
      return { kind: 'list', items, pos };
    }
    if (this.accept('{')) {
      const entries: { key: Expr; value: Expr }[] = [];
      if (!this.is('}')) {
        do {
          const key = this.expr();
          this.expect(':');
          entries.push({ key, value: this.expr() });
        } while (this.accept(',') && !this.is('}'));
      }
      this.expect('}');
      return { kind: 'map', entries, pos };
    }
    return this.fail(`unexpected ${this.describe(t)}, expected an expression`);
  }

  private rule(): Expr {
    const pos = this.expect('rule').pos;
    const when = this.accept('when') ? this.expr() : undefined;
    this.expect('{');
    const body = this.expr();
    this.expect('}');
    return when ? { kind: 'rule', when, body, pos } : { kind: 'rule', body, pos };
  }

  private quantifier(op: 'all' | 'any'): Expr {
    const pos = this.tok.pos;
    this.i++;
    const collection = this.expr();
    this.expect('as');
    const first = this.ident().text;
    const vars: [string] | [string, string] = this.accept(',') ? [first, this.ident().text] : [first];
    this.expect('{');
    const body = this.expr();
    this.expect('}');
    return { kind: 'quantifier', op, collection, vars, body, pos };
  }
}

/** Parses a policy; throws SentinelParseError with the line and column of the first mistake. */
export function parsePolicyAst(source: string): PolicyAst {
  const ast = new Parser(tokenize(source)).program();
  checkNames(ast);
  return ast;
}

/**
 * Static checks that make a mistake a 400 at write time rather than a denial at request time:
 * a `main` rule, no name assigned twice, no name used that nothing defines.
 */
function checkNames(ast: PolicyAst): void {
  const defined = new Set<string>();
  for (const a of ast.assignments) {
    if (defined.has(a.name))
      throw new SentinelParseError(`${JSON.stringify(a.name)} is assigned twice`, a.pos);
    if (ast.imports.has(a.name))
      throw new SentinelParseError(`${JSON.stringify(a.name)} is an import`, a.pos);
    defined.add(a.name);
  }
  const main = ast.assignments.find((a) => a.name === 'main');
  if (!main) throw new SentinelParseError('policy has no "main" rule', { line: 1, column: 1 });
  const known = (name: string, locals: ReadonlySet<string>): boolean =>
    locals.has(name) ||
    defined.has(name) ||
    ast.imports.has(name) ||
    GLOBAL_NAMES.has(name) ||
    BUILTIN_FUNCTIONS.has(name);
  const visit = (e: Expr, locals: ReadonlySet<string>): void => {
    switch (e.kind) {
      case 'ident':
        if (!known(e.name, locals))
          throw new SentinelParseError(`unknown name ${JSON.stringify(e.name)}`, e.pos);
        return;
      case 'list':
        e.items.forEach((i) => visit(i, locals));
        return;
      case 'map':
        e.entries.forEach((en) => {
          visit(en.key, locals);
          visit(en.value, locals);
        });
        return;
      case 'selector':
        visit(e.target, locals);
        return;
      case 'index':
        visit(e.target, locals);
        visit(e.index, locals);
        return;
      case 'call':
        visit(e.callee, locals);
        e.args.forEach((a) => visit(a, locals));
        return;
      case 'unary':
        visit(e.operand, locals);
        return;
      case 'binary':
        visit(e.left, locals);
        visit(e.right, locals);
        return;
      case 'else':
        visit(e.value, locals);
        visit(e.fallback, locals);
        return;
      case 'quantifier': {
        visit(e.collection, locals);
        visit(e.body, new Set([...locals, ...e.vars]));
        return;
      }
      case 'rule':
        if (e.when) visit(e.when, locals);
        visit(e.body, locals);
        return;
      case 'literal':
      case 'undefined':
        return;
    }
  };
  for (const a of ast.assignments) visit(a.value, new Set());
}
