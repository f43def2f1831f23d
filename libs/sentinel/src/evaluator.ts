import type { Assignment, Expr, PolicyAst } from './ast';
import { BUILTINS, CallError, loadImport } from './imports';
import { parsePolicyAst } from './parser';
import { arithmetic, compare, contains } from './sentinel-operators';
import { usedGlobals } from './sentinel-globals';
import { SentinelRuntimeError, type Position } from './sentinel-errors';
import {
  fromHost,
  isMap,
  mapGet,
  SentinelFunction,
  typeName,
  UNDEFINED,
  valuesEqual,
  type MapValue,
  type Value,
} from './values';

/** The data a policy sees (Vault's names); absent parts are Sentinel's undefined. */
export interface SentinelInput {
  request?: unknown;
  token?: unknown;
  identity?: unknown;
  mfa?: unknown;
  /** the request's time: time.now */
  now: Date;
}

export interface RuleResult {
  name: string;
  /** false, true or "undefined" */
  value: boolean | 'undefined';
  pos: Position;
}

export interface SentinelResult {
  passed: boolean;
  /** the top-level rules evaluated, in the order they finished (main last) */
  rules: RuleResult[];
  /** a runtime error (the policy then fails) */
  error?: string;
}

/** A parsed policy, ready to be evaluated any number of times (keep one per policy version). */
export class CompiledPolicy {
  readonly globals: ReadonlySet<string>;
  private readonly byName: Map<string, Assignment>;

  constructor(
    readonly source: string,
    readonly ast: PolicyAst,
  ) {
    this.byName = new Map(ast.assignments.map((a) => [a.name, a]));
    this.globals = usedGlobals(ast);
  }

  /** Whether the policy reads this part of the data model (`token`, `identity`, ...). */
  uses(global: 'request' | 'token' | 'identity' | 'mfa'): boolean {
    return this.globals.has(global);
  }

  evaluate(input: SentinelInput): SentinelResult {
    const run = new Evaluation(this.byName, this.ast.imports, input);
    try {
      const main = run.variable('main', (this.byName.get('main') as Assignment).pos);
      if (main === true) return { passed: true, rules: run.rules };
      if (main === false) return { passed: false, rules: run.rules };
      if (main === UNDEFINED)
        return { passed: false, rules: run.rules, error: 'main evaluated to undefined' };
      return { passed: false, rules: run.rules, error: `main must be a boolean, got ${typeName(main)}` };
    } catch (error) {
      if (error instanceof SentinelRuntimeError)
        return { passed: false, rules: run.rules, error: error.message };
      if (error instanceof RangeError)
        return { passed: false, rules: run.rules, error: 'evaluation too deep' };
      throw error;
    }
  }
}

/** Parses a policy (SentinelParseError with line and column on a mistake). */
export function compileSentinel(source: string): CompiledPolicy {
  return new CompiledPolicy(source, parsePolicyAst(source));
}

const IN_PROGRESS = Symbol('in progress');
const regexCache = new Map<string, RegExp>();

function regex(pattern: string, pos: Position): RegExp {
  let re = regexCache.get(pattern);
  if (!re) {
    try {
      re = new RegExp(pattern, 'u');
    } catch {
      throw new SentinelRuntimeError(`invalid regular expression ${JSON.stringify(pattern)}`, pos);
    }
    if (regexCache.size > 1000) regexCache.clear();
    regexCache.set(pattern, re);
  }
  return re;
}

/** One evaluation: top-level values are computed when first used and kept for the rest of it. */
class Evaluation {
  readonly rules: RuleResult[] = [];
  private readonly values = new Map<string, Value | typeof IN_PROGRESS>();
  private readonly modules = new Map<string, MapValue>();
  private readonly hostValues = new Map<string, Value>();

  constructor(
    private readonly byName: Map<string, Assignment>,
    private readonly imports: Map<string, string>,
    private readonly input: SentinelInput,
  ) {}

  variable(name: string, pos: Position): Value {
    const known = this.values.get(name);
    if (known === IN_PROGRESS)
      throw new SentinelRuntimeError(`${JSON.stringify(name)} refers to itself`, pos);
    if (known !== undefined) return known;
    const def = this.byName.get(name);
    if (!def) return this.global(name, pos);
    this.values.set(name, IN_PROGRESS);
    const value = this.eval(def.value, new Map());
    this.values.set(name, value);
    if (def.value.kind === 'rule') {
      this.rules.push({ name, value: value === UNDEFINED ? 'undefined' : value === true, pos: def.pos });
    }
    return value;
  }

  private global(name: string, pos: Position): Value {
    const module = this.imports.get(name);
    if (module !== undefined) {
      let m = this.modules.get(name);
      if (!m) {
        m = loadImport(module, this.input.now.getTime());
        this.modules.set(name, m);
      }
      return m;
    }
    const builtin = BUILTINS[name];
    if (builtin) return builtin;
    if (name === 'request' || name === 'token' || name === 'identity' || name === 'mfa') {
      let v = this.hostValues.get(name);
      if (v === undefined) {
        v = fromHost(this.input[name] ?? (name === 'mfa' ? {} : undefined));
        this.hostValues.set(name, v);
      }
      return v;
    }
    throw new SentinelRuntimeError(`unknown name ${JSON.stringify(name)}`, pos);
  }

  private eval(e: Expr, locals: Map<string, Value>): Value {
    switch (e.kind) {
      case 'literal':
        return e.value;
      case 'undefined':
        return UNDEFINED;
      case 'ident': {
        const local = locals.get(e.name);
        return local !== undefined ? local : this.variable(e.name, e.pos);
      }
      case 'list':
        return e.items.map((i) => this.eval(i, locals));
      case 'map': {
        const out: MapValue = {};
        for (const entry of e.entries) {
          const key = this.eval(entry.key, locals);
          if (typeof key !== 'string' && typeof key !== 'number' && typeof key !== 'boolean') {
            throw new SentinelRuntimeError(
              `map keys must be strings, numbers or bools, got ${typeName(key)}`,
              entry.key.pos,
            );
          }
          Object.defineProperty(out, String(key), {
            value: this.eval(entry.value, locals),
            enumerable: true,
            writable: true,
            configurable: true,
          });
        }
        return out;
      }
      case 'selector': {
        const target = this.eval(e.target, locals);
        if (target === UNDEFINED || target === null) return UNDEFINED;
        if (isMap(target)) return mapGet(target, e.field);
        throw new SentinelRuntimeError(
          `cannot select ${JSON.stringify(e.field)} from ${typeName(target)}`,
          e.pos,
        );
      }
      case 'index': {
        const target = this.eval(e.target, locals);
        const index = this.eval(e.index, locals);
        if (target === UNDEFINED || index === UNDEFINED || target === null) return UNDEFINED;
        if (Array.isArray(target)) {
          if (typeof index !== 'number' || !Number.isInteger(index)) {
            throw new SentinelRuntimeError(`list index must be an int, got ${typeName(index)}`, e.pos);
          }
          const i = index < 0 ? target.length + index : index;
          return i >= 0 && i < target.length ? (target[i] as Value) : UNDEFINED;
        }
        if (isMap(target)) {
          if (typeof index !== 'string' && typeof index !== 'number' && typeof index !== 'boolean') {
            throw new SentinelRuntimeError(`map key must be a string, got ${typeName(index)}`, e.pos);
          }
          return mapGet(target, String(index));
        }
        throw new SentinelRuntimeError(`cannot index ${typeName(target)}`, e.pos);
      }
      case 'call': {
        const callee = this.eval(e.callee, locals);
        if (!(callee instanceof SentinelFunction)) {
          if (callee === UNDEFINED) return UNDEFINED;
          throw new SentinelRuntimeError(`${typeName(callee)} is not a function`, e.pos);
        }
        const args = e.args.map((a) => this.eval(a, locals));
        if (args.some((a) => a === UNDEFINED)) return UNDEFINED;
        try {
          return callee.call(args);
        } catch (error) {
          if (error instanceof CallError) throw new SentinelRuntimeError(error.message, e.pos);
          throw error;
        }
      }
      case 'unary': {
        const v = this.eval(e.operand, locals);
        if (v === UNDEFINED) return UNDEFINED;
        if (e.op === 'not') return this.bool(v, e.pos, 'not') === false;
        if (typeof v !== 'number') throw new SentinelRuntimeError(`cannot negate ${typeName(v)}`, e.pos);
        return -v;
      }
      case 'else': {
        const v = this.eval(e.value, locals);
        return v === UNDEFINED ? this.eval(e.fallback, locals) : v;
      }
      case 'rule': {
        if (e.when) {
          const when = this.eval(e.when, locals);
          if (when === UNDEFINED) return UNDEFINED;
          if (!this.bool(when, e.when.pos, 'rule when')) return true;
        }
        const v = this.eval(e.body, locals);
        if (v === UNDEFINED) return UNDEFINED;
        return this.bool(v, e.body.pos, 'rule');
      }
      case 'quantifier':
        return this.quantifier(e, locals);
      case 'binary':
        return this.binary(e, locals);
    }
  }

  private bool(v: Value, pos: Position, what: string): boolean {
    if (typeof v !== 'boolean')
      throw new SentinelRuntimeError(`${what} needs a boolean, got ${typeName(v)}`, pos);
    return v;
  }

  private quantifier(e: Extract<Expr, { kind: 'quantifier' }>, locals: Map<string, Value>): Value {
    const collection = this.eval(e.collection, locals);
    if (collection === UNDEFINED) return UNDEFINED;
    const pairs: [Value, Value][] = Array.isArray(collection)
      ? collection.map((v, i) => [i, v])
      : isMap(collection)
        ? Object.keys(collection).map((k) => [k, collection[k] as Value])
        : [];
    if (!Array.isArray(collection) && !isMap(collection)) {
      throw new SentinelRuntimeError(
        `${e.op} needs a list or a map, got ${typeName(collection)}`,
        e.collection.pos,
      );
    }
    const wantAll = e.op === 'all';
    let sawUndefined = false;
    for (const [key, value] of pairs) {
      const scope = new Map(locals);
      if (e.vars.length === 2) {
        scope.set(e.vars[0], key);
        scope.set(e.vars[1], value);
      } else {
        // a list binds its values, a map its keys (Sentinel's single-variable forms)
        scope.set(e.vars[0], Array.isArray(collection) ? value : key);
      }
      const v = this.eval(e.body, scope);
      if (v === UNDEFINED) {
        sawUndefined = true;
        continue;
      }
      const b = this.bool(v, e.body.pos, e.op);
      if (wantAll && !b) return false;
      if (!wantAll && b) return true;
    }
    return sawUndefined ? UNDEFINED : wantAll;
  }

  private binary(e: Extract<Expr, { kind: 'binary' }>, locals: Map<string, Value>): Value {
    const { op, pos } = e;
    if (op === 'and' || op === 'or') {
      const left = this.eval(e.left, locals);
      if (left === UNDEFINED) return UNDEFINED;
      const l = this.bool(left, e.left.pos, op);
      if (op === 'and' && !l) return false;
      if (op === 'or' && l) return true;
      const right = this.eval(e.right, locals);
      return right === UNDEFINED ? UNDEFINED : this.bool(right, e.right.pos, op);
    }
    const left = this.eval(e.left, locals);
    const right = this.eval(e.right, locals);
    if (left === UNDEFINED || right === UNDEFINED) return UNDEFINED;
    switch (op) {
      case 'xor':
        return this.bool(left, e.left.pos, op) !== this.bool(right, e.right.pos, op);
      case 'is':
      case '==':
        return valuesEqual(left, right);
      case 'is not':
      case '!=':
        return !valuesEqual(left, right);
      case '<':
      case '<=':
      case '>':
      case '>=':
        return compare(op, left, right, pos);
      case 'contains':
        return contains(left, right, pos);
      case 'not contains':
        return !contains(left, right, pos);
      case 'in':
        return contains(right, left, pos);
      case 'not in':
        return !contains(right, left, pos);
      case 'matches':
      case 'not matches': {
        if (typeof left !== 'string' || typeof right !== 'string') {
          throw new SentinelRuntimeError(
            `matches needs two strings, got ${typeName(left)} and ${typeName(right)}`,
            pos,
          );
        }
        const m = regex(right, pos).test(left);
        return op === 'matches' ? m : !m;
      }
      case '+':
      case '-':
      case '*':
      case '/':
      case '%':
        return arithmetic(op, left, right, pos);
    }
  }
}
