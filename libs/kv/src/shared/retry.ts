import { isConcurrencyError } from '@coffer/event-store';

/** Primary keys of read-model rows that a key's first append inserts (see the projections). */
const CREATION_CONSTRAINTS = new Set(['kv2_keys_pk', 'flat_secrets_pk', 'kv2_config_pkey']);

/**
 * Optimistic concurrency: a decision taken on a read model that another writer (this replica or
 * another) changed before the append fails with ConcurrencyError, or, when two writers create
 * the same key at once, with a unique violation of the row the loser tried to insert. Both are
 * retried from a fresh read.
 */
export function isConflict(error: unknown): boolean {
  if (isConcurrencyError(error)) return true;
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { code?: unknown; constraint?: unknown };
  return e.code === '23505' && typeof e.constraint === 'string' && CREATION_CONSTRAINTS.has(e.constraint);
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
