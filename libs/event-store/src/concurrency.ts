/**
 * The stream moved on since the caller read it (expectedVersion mismatch or a concurrent append
 * of the same stream version). Not a DomainError: services catch it, re-read state, re-decide,
 * and try again (see retryOnConflict).
 */
export class ConcurrencyError extends Error {
  constructor(
    readonly stream: string,
    readonly expectedVersion: number | 'any',
    readonly actualVersion: number | undefined,
  ) {
    super(
      `stream ${stream}: expected version ${expectedVersion}` +
        (actualVersion === undefined ? ', a concurrent append won' : `, found ${actualVersion}`),
    );
    this.name = 'ConcurrencyError';
  }
}

export const isConcurrencyError = (e: unknown): e is ConcurrencyError => e instanceof ConcurrencyError;

/**
 * Runs `fn` (read state, decide, append) again when it fails with ConcurrencyError, up to
 * `attempts` runs in total; the last ConcurrencyError is rethrown.
 */
export async function retryOnConflict<T>(fn: () => Promise<T>, attempts = 5): Promise<T> {
  if (!Number.isInteger(attempts) || attempts < 1)
    throw new RangeError('attempts must be a positive integer');
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (!isConcurrencyError(error) || attempt >= attempts) throw error;
    }
  }
}
