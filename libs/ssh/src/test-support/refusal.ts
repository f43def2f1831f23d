import { DomainError } from '@coffer/contracts';

/** The message of the 400 (invalid_request) `fn` throws; fails the test when it does not refuse. */
export function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof DomainError && error.code === 'invalid_request') return error.message;
    throw error;
  }
  throw new Error('accepted, expected a refusal');
}
