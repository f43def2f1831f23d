/**
 * The HCL (v1) syntax tree. Every node carries the position where it starts so that callers
 * (policy parser, config loader) can report semantic errors with a line and column too.
 */
export interface Position {
  /** 1-based */
  line: number;
  /** 1-based, counted in Unicode code points */
  column: number;
  /** 0-based UTF-16 offset into the source text */
  offset: number;
}

export interface HclBody {
  type: 'Body';
  items: HclItem[];
  pos: Position;
}

export type HclItem = HclAttribute | HclBlock;

/** `key = value` */
export interface HclAttribute {
  type: 'Attribute';
  key: string;
  value: HclExpression;
  pos: Position;
}

/** `key "label" ... { body }`; zero or more labels (identifiers or strings). */
export interface HclBlock {
  type: 'Block';
  key: string;
  labels: string[];
  body: HclBody;
  pos: Position;
}

export type HclExpression = HclString | HclNumber | HclBool | HclNull | HclList | HclObjectExpr;

export interface HclString {
  type: 'String';
  value: string;
  /** set when the literal was written as a heredoc */
  heredoc?: { marker: string; indented: boolean };
  pos: Position;
}

export interface HclNumber {
  type: 'Number';
  value: number;
  /** the literal as written, e.g. "0x1F", "-1.5e3" */
  raw: string;
  pos: Position;
}

export interface HclBool {
  type: 'Bool';
  value: boolean;
  pos: Position;
}

/** Only produced by the JSON form (`null`); HCL v1 has no null literal. */
export interface HclNull {
  type: 'Null';
  pos: Position;
}

export interface HclList {
  type: 'List';
  items: HclExpression[];
  pos: Position;
}

/** `{ k = v, "k2" = [] }`: an object literal is a body, so it may contain nested blocks too. */
export interface HclObjectExpr {
  type: 'Object';
  body: HclBody;
  pos: Position;
}
