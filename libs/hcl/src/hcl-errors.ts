import type { Position } from './ast';

/**
 * A syntax (or structural) error with a 1-based line and column. The message follows HCL v1's
 * "At line:column: reason" form, which is what Vault shows for a broken policy.
 */
export class HclParseError extends Error {
  readonly line: number;
  readonly column: number;
  readonly offset: number;

  constructor(
    readonly reason: string,
    pos: Position,
  ) {
    super(`At ${pos.line}:${pos.column}: ${reason}`);
    this.name = 'HclParseError';
    this.line = pos.line;
    this.column = pos.column;
    this.offset = pos.offset;
  }
}

export const isHclParseError = (e: unknown): e is HclParseError => e instanceof HclParseError;
