/** A 1-based source position. */
export interface Position {
  line: number;
  column: number;
}

/**
 * A policy that does not parse (or names something the subset does not know): written as
 * "line L, column C: reason", so a bad policy answers a 400 that points at the mistake.
 */
export class SentinelParseError extends Error {
  readonly line: number;
  readonly column: number;

  constructor(
    readonly reason: string,
    pos: Position,
  ) {
    super(`line ${pos.line}, column ${pos.column}: ${reason}`);
    this.name = 'SentinelParseError';
    this.line = pos.line;
    this.column = pos.column;
  }
}

/** A failure while evaluating (a type error, a bad call): the policy fails, never passes. */
export class SentinelRuntimeError extends Error {
  constructor(
    readonly reason: string,
    pos: Position,
  ) {
    super(`line ${pos.line}, column ${pos.column}: ${reason}`);
    this.name = 'SentinelRuntimeError';
  }
}

export const isSentinelParseError = (e: unknown): e is SentinelParseError => e instanceof SentinelParseError;
