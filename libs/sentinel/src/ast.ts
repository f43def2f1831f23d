import type { Position } from './sentinel-errors';

export type BinaryOp =
  | 'and'
  | 'or'
  | 'xor'
  | 'is'
  | 'is not'
  | '=='
  | '!='
  | '<'
  | '<='
  | '>'
  | '>='
  | 'contains'
  | 'not contains'
  | 'in'
  | 'not in'
  | 'matches'
  | 'not matches'
  | '+'
  | '-'
  | '*'
  | '/'
  | '%';

export type Expr =
  | { kind: 'literal'; value: string | number | boolean | null; pos: Position }
  | { kind: 'undefined'; pos: Position }
  | { kind: 'ident'; name: string; pos: Position }
  | { kind: 'list'; items: Expr[]; pos: Position }
  | { kind: 'map'; entries: { key: Expr; value: Expr }[]; pos: Position }
  | { kind: 'selector'; target: Expr; field: string; pos: Position }
  | { kind: 'index'; target: Expr; index: Expr; pos: Position }
  | { kind: 'call'; callee: Expr; args: Expr[]; pos: Position }
  | { kind: 'unary'; op: 'not' | '-'; operand: Expr; pos: Position }
  | { kind: 'binary'; op: BinaryOp; left: Expr; right: Expr; pos: Position }
  | { kind: 'else'; value: Expr; fallback: Expr; pos: Position }
  | {
      kind: 'quantifier';
      op: 'all' | 'any';
      collection: Expr;
      vars: [string] | [string, string];
      body: Expr;
      pos: Position;
    }
  | { kind: 'rule'; when?: Expr; body: Expr; pos: Position };

export interface Assignment {
  name: string;
  value: Expr;
  pos: Position;
}

export interface PolicyAst {
  /** import name (or alias) -> module */
  imports: Map<string, string>;
  assignments: Assignment[];
}
