export type { Assignment, BinaryOp, Expr, PolicyAst } from './ast';
export {
  SentinelParseError,
  SentinelRuntimeError,
  isSentinelParseError,
  type Position,
} from './sentinel-errors';
export { parsePolicyAst, KNOWN_IMPORTS, GLOBAL_NAMES } from './parser';
export {
  compileSentinel,
  CompiledPolicy,
  type RuleResult,
  type SentinelInput,
  type SentinelResult,
} from './evaluator';
export { timeValue } from './imports';
