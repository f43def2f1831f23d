export type {
  HclAttribute,
  HclBlock,
  HclBody,
  HclBool,
  HclExpression,
  HclItem,
  HclList,
  HclNull,
  HclNumber,
  HclObjectExpr,
  HclString,
  Position,
} from './ast';
export { HclParseError, isHclParseError } from './hcl-errors';
export { parseHcl, parseHclJson, looksLikeJson } from './parser';
export { hclToObject, expressionToValue } from './to-object';
export type { HclPlainObject, HclPlainValue, HclBlockEntry } from './to-object';
export { printHcl, printExpression, quote as quoteHclString } from './printer';
