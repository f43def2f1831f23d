import { EMPTY_ROOT, HASH_BYTES, nodeHash, type SubtreeRef } from './merkle-tree';

/**
 * The right edge of a Merkle tree (RFC 9162's "compact range" of [0, size)): the roots of the
 * perfect subtrees the binary decomposition of `size` names, largest (leftmost) first, one per set
 * bit. Appending a leaf merges like a binary counter and reports every perfect subtree it
 * completes, so an indexer stores those once and never rebuilds the tree: the log grows by one
 * leaf, the work is O(1) amortised, and the frontier itself is at most 53 hashes.
 */
export class MerkleFrontier {
  #size: number;
  readonly #hashes: Buffer[];

  constructor(size = 0, hashes: readonly Buffer[] = []) {
    if (hashes.length !== bitCount(size)) {
      throw new Error(`a frontier of ${size} leaves has ${bitCount(size)} hashes, not ${hashes.length}`);
    }
    this.#size = size;
    this.#hashes = [...hashes];
  }

  get size(): number {
    return this.#size;
  }

  /** Adds leaf `size` and calls `completed` for every perfect subtree it completes (level 0 = the leaf). */
  append(leaf: Buffer, completed?: (ref: SubtreeRef, hash: Buffer) => void): void {
    const leafIndex = this.#size;
    let hash = leaf;
    let level = 0;
    completed?.({ level: 0, index: leafIndex }, hash);
    let carry = leafIndex;
    while (carry % 2 === 1) {
      const left = this.#hashes.pop() as Buffer;
      hash = nodeHash(left, hash);
      level += 1;
      carry = Math.floor(carry / 2);
      completed?.({ level, index: (leafIndex + 1) / 2 ** level - 1 }, hash);
    }
    this.#hashes.push(hash);
    this.#size += 1;
  }

  /** MTH of the first `size` leaves: the frontier folded from the right. */
  root(): Buffer {
    let root: Buffer | undefined;
    for (let i = this.#hashes.length - 1; i >= 0; i--) {
      const h = this.#hashes[i] as Buffer;
      root = root ? nodeHash(h, root) : h;
    }
    return root ?? EMPTY_ROOT;
  }

  /** The hashes concatenated (the size is stored beside them). */
  serialize(): Buffer {
    return Buffer.concat(this.#hashes);
  }

  static deserialize(size: number, bytes: Uint8Array): MerkleFrontier {
    const hashes: Buffer[] = [];
    for (let i = 0; i < bytes.byteLength; i += HASH_BYTES) {
      hashes.push(Buffer.from(bytes.subarray(i, i + HASH_BYTES)));
    }
    return new MerkleFrontier(size, hashes);
  }
}

function bitCount(n: number): number {
  let count = 0;
  for (let x = n; x > 0; x = Math.floor(x / 2)) count += x % 2;
  return count;
}
