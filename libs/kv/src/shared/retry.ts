import { ConcurrencyError } from '@coffer/event-store';

/**
 * Optimistic concurrency: a decision taken on a read model that another writer (this replica or
 * another) changed before the append fails with ConcurrencyError, or with a unique violation
 * when two writers create the same key at once. Both are retried from a fresh read.
 */
export function isConflict(error: unknown): boolean {
  if (error instanceof ConcurrencyError) return true;
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return code === '23505';
}

export async function retryOnConflict<T>(fn: () => Promise<T>, attempts = 20): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (!isConflict(error) || attempt >= attempts) throw error;
      // Jitter keeps contending writers from colliding again in lock-step.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 2 ** attempt)));
    }
  }
}
