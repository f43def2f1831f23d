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

export interface RetryOptions {
  /** runs in total, the first included (default 5) */
  attempts?: number;
  /**
   * Unique constraints (names exported next to the tables that declare them) whose violation
   * means a concurrent writer created the same row first: retried like a ConcurrencyError.
   */
  uniqueConstraints?: readonly string[];
}

/** A ConcurrencyError, or a unique violation (23505) of one of `uniqueConstraints`. */
export function isConflict(error: unknown, uniqueConstraints: readonly string[] = []): boolean {
  if (isConcurrencyError(error)) return true;
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { code?: unknown; constraint?: unknown };
  return e.code === '23505' && typeof e.constraint === 'string' && uniqueConstraints.includes(e.constraint);
}

/**
 * Optimistic concurrency: runs `fn` (read state, decide, append) again when it fails with a
 * conflict (see isConflict), up to `attempts` runs in total; the last error is rethrown. A
 * random pause before each retry keeps contending writers from colliding again in lock-step.
 */
export async function retryOnConflict<T>(fn: () => Promise<T>, opts: RetryOptions = {}): Promise<T> {
  const { attempts = 5, uniqueConstraints = [] } = opts;
  if (!Number.isInteger(attempts) || attempts < 1)
    throw new RangeError('attempts must be a positive integer');
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (!isConflict(error, uniqueConstraints) || attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 2 ** attempt)));
    }
  }
}
