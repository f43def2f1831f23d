import { createHash } from 'node:crypto';

/** The head of one service's log (or of a secondary's copy of it). */
export interface SourceHead {
  /** the service's schema */
  source: string;
  lastWal: number;
  /** the hash chain's head: the hash of event `lastWal` */
  hash: string;
}

const sha256 = (...parts: string[]): string => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p, 'utf8');
  return h.digest('hex');
};

/**
 * The merkle root over the hash chains of every service log: one leaf per log that has events
 * (its schema, last WAL and chain head), ordered by schema, paired level by level (an odd node
 * is paired with itself). Each chain head already commits to its whole log, so the root changes
 * with any event of any log, and a primary and a secondary agree on it exactly when every log
 * copy is at the same position with the same history.
 */
export function merkleRoot(heads: readonly SourceHead[]): string {
  let level = heads
    .filter((h) => h.lastWal > 0)
    .sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0))
    .map((h) => sha256('leaf\0', h.source, '\0', String(h.lastWal), '\0', h.hash));
  if (level.length === 0) return sha256('empty');
  while (level.length > 1) {
    const next: string[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const left = level[i] ?? '';
      next.push(sha256('node\0', left, level[i + 1] ?? left));
    }
    level = next;
  }
  return level[0] ?? sha256('empty');
}

/** Vault's single WAL number: the events of every log together (a sum of gap-free indexes). */
export const totalWal = (heads: readonly SourceHead[]): number => heads.reduce((n, h) => n + h.lastWal, 0);
