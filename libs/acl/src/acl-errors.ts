import { DomainError } from '@coffer/contracts';

/**
 * A policy that cannot be parsed. It is an invalid_request DomainError (Vault answers 400 with
 * the same text), and carries the line and column of the offending construct when known.
 */
export class PolicyParseError extends DomainError {
  constructor(
    message: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super('invalid_request', message);
    this.name = 'PolicyParseError';
  }
}
