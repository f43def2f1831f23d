/**
 * A secondary's verdict on a frame's epoch against the highest it has seen: `stale` frames come
 * from a primary a promotion superseded (it was not fenced, or not yet) and are refused whole,
 * so nothing of that history is applied; `newer` is recorded before the frame is used, so the
 * secondary never goes back below it (not even after a restart).
 */
export type EpochVerdict = 'current' | 'newer' | 'stale';

export function judgeEpoch(known: number, stamped: number): EpochVerdict {
  if (stamped < known) return 'stale';
  return stamped > known ? 'newer' : 'current';
}

/** What a secondary says when it refuses a superseded primary (shown in its status). */
export const staleEpochReason = (known: number, stamped: number): string =>
  `the primary's epoch ${stamped} is older than this secondary's ${known}: it was superseded by a promotion`;

/** What a primary answers a secondary that has seen a later epoch than its own. */
export const supersededPrimaryReason = (own: number, seen: number): string =>
  `this primary (epoch ${own}) was superseded: the secondary has seen epoch ${seen}`;
