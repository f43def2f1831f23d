import { createHash } from 'node:crypto';

/**
 * The Merkle tree over a service's event log, with RFC 6962 / RFC 9162 (Certificate Transparency)
 * shapes: leaf i is event wal = i + 1, its hash SHA-256(0x00 || the event's 32-byte chain hash),
 * an interior node SHA-256(0x01 || left || right), and MTH(D[n]) splits at the largest power of
 * two smaller than n. The chain hash already commits to the event's stream, versions, type and
 * ciphertext (and to the whole log before it), so the leaf needs nothing more.
 *
 * Everything here is pure and synchronous: proofs are computed against a lookup of *perfect
 * subtrees* (aligned, 2^level leaves, index = first leaf / 2^level). Every subtree the RFC
 * recursion visits is either perfect and aligned or splits into such subtrees, so a store that
 * keeps perfect subtree roots (merkle-frontier.ts) answers any proof for any tree size with
 * O(log n) lookups. `collectSubtrees` runs a computation once to learn which ones it needs, so
 * the caller can fetch them in one round trip before running it for real.
 */

export const HASH_BYTES = 32;
const LEAF_PREFIX = Buffer.from([0x00]);
const NODE_PREFIX = Buffer.from([0x01]);

export interface SubtreeRef {
  level: number;
  index: number;
}

/** The root hash of the perfect subtree `ref`. */
export type SubtreeLookup = (ref: SubtreeRef) => Buffer;

export const subtreeKey = (ref: SubtreeRef): string => `${ref.level}:${ref.index}`;

export function leafHash(entry: Uint8Array): Buffer {
  return createHash('sha256').update(LEAF_PREFIX).update(entry).digest();
}

export function nodeHash(left: Uint8Array, right: Uint8Array): Buffer {
  return createHash('sha256').update(NODE_PREFIX).update(left).update(right).digest();
}

/** MTH of the empty tree: SHA-256 of nothing. */
export const EMPTY_ROOT: Buffer = createHash('sha256').digest();

/** The leaf hash of an event, from its hex chain hash. */
export const eventLeafHash = (chainHashHex: string): Buffer => leafHash(Buffer.from(chainHashHex, 'hex'));

/** The largest power of two strictly smaller than n (n >= 2). Arithmetic, not bit operators: sizes pass 2^32. */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

function perfectLevel(start: number, size: number): number | undefined {
  let level = 0;
  let s = 1;
  while (s < size) {
    s *= 2;
    level += 1;
  }
  return s === size && start % size === 0 ? level : undefined;
}

/** MTH(D[start:end]) for a range the RFC recursion produces (start a multiple of every split below it). */
export function rangeRoot(start: number, end: number, get: SubtreeLookup): Buffer {
  const n = end - start;
  if (n <= 0) return EMPTY_ROOT;
  const level = perfectLevel(start, n);
  if (level !== undefined) return get({ level, index: start / n });
  const k = splitPoint(n);
  return nodeHash(rangeRoot(start, start + k, get), rangeRoot(start + k, end, get));
}

/** The root of the tree of the first `size` leaves. */
export const treeRoot = (size: number, get: SubtreeLookup): Buffer => rangeRoot(0, size, get);

/** RFC 9162 2.1.3.1 PATH(m, D[n]): the audit path of leaf `leaf` in the tree of `size` leaves. */
export function inclusionPath(leaf: number, size: number, get: SubtreeLookup): Buffer[] {
  if (leaf < 0 || leaf >= size) throw new RangeError(`leaf ${leaf} is not in a tree of ${size}`);
  const path: Buffer[] = [];
  const walk = (start: number, end: number): void => {
    if (end - start === 1) return;
    const k = splitPoint(end - start);
    if (leaf < start + k) {
      walk(start, start + k);
      path.push(rangeRoot(start + k, end, get));
    } else {
      walk(start + k, end);
      path.push(rangeRoot(start, start + k, get));
    }
  };
  walk(0, size);
  return path;
}

/** RFC 9162 2.1.4.1 PROOF(m, D[n]): the consistency proof from the tree of `first` leaves to `second`. */
export function consistencyPath(first: number, second: number, get: SubtreeLookup): Buffer[] {
  if (first < 0 || first > second) throw new RangeError(`no consistency proof from ${first} to ${second}`);
  if (first === 0 || first === second) return [];
  const proof: Buffer[] = [];
  const sub = (m: number, start: number, end: number, whole: boolean): void => {
    const n = end - start;
    if (m === n) {
      if (!whole) proof.push(rangeRoot(start, end, get));
      return;
    }
    const k = splitPoint(n);
    if (m <= k) {
      sub(m, start, start + k, whole);
      proof.push(rangeRoot(start + k, end, get));
    } else {
      sub(m - k, start + k, end, false);
      proof.push(rangeRoot(start, start + k, get));
    }
  };
  sub(first, 0, second, true);
  return proof;
}

/**
 * The perfect subtrees `compute` reads (run with placeholder hashes: no algorithm here branches on
 * a hash value), so they can be fetched together before running it with the real lookup.
 */
export function collectSubtrees(compute: (get: SubtreeLookup) => unknown): SubtreeRef[] {
  const seen = new Map<string, SubtreeRef>();
  compute((ref) => {
    seen.set(subtreeKey(ref), ref);
    return EMPTY_ROOT;
  });
  return [...seen.values()];
}

/** A lookup over fetched subtrees; a missing one is a bug of the fetcher, so it throws. */
export function lookupFrom(hashes: ReadonlyMap<string, Buffer>): SubtreeLookup {
  return (ref) => {
    const h = hashes.get(subtreeKey(ref));
    if (!h) throw new Error(`merkle subtree ${subtreeKey(ref)} was not fetched`);
    return h;
  };
}

/** The root of a perfect subtree from its leaf hashes (a power-of-two count). */
export function perfectRoot(leaves: readonly Buffer[]): Buffer {
  if (leaves.length === 0 || perfectLevel(0, leaves.length) === undefined) {
    throw new RangeError(`${leaves.length} leaves do not make a perfect subtree`);
  }
  let level = leaves;
  while (level.length > 1) {
    const next: Buffer[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(nodeHash(level[i] as Buffer, level[i + 1] as Buffer));
    level = next;
  }
  return level[0] as Buffer;
}
