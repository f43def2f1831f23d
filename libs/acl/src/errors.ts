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

/** go-multierror's rendering, which Vault uses for key validation errors. */
export function multiError(errors: string[]): string {
  if (errors.length === 1) return `1 error occurred:\n\t* ${errors[0]}\n\n`;
  return `${errors.length} errors occurred:\n\t${errors.map((e) => `* ${e}`).join('\n\t')}\n\n`;
}
