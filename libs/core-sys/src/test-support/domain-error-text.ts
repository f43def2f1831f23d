import { isDomainError } from '@coffer/contracts';

/** The message of the DomainError `fn` throws (for rule-table specs); fails when it throws none. */
export function domainErrorText(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (isDomainError(error)) return error.message;
    throw error;
  }
  throw new Error('expected a DomainError');
}
