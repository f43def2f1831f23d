import { createHash } from 'node:crypto';
import { MerkleFrontier } from './merkle-frontier';
import {
  collectSubtrees,
  consistencyPath,
  EMPTY_ROOT,
  inclusionPath,
  leafHash,
  lookupFrom,
  nodeHash,
  perfectRoot,
  subtreeKey,
  treeRoot,
  type SubtreeLookup,
} from './merkle-tree';
import { verifyConsistency, verifyInclusion } from './merkle-verify';

/** RFC 6962 MTH written straight from its definition, as the reference. */
function mth(leaves: readonly Buffer[]): Buffer {
  if (leaves.length === 0) return EMPTY_ROOT;
  if (leaves.length === 1) return leaves[0] as Buffer;
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return nodeHash(mth(leaves.slice(0, k)), mth(leaves.slice(k)));
}

const leaves = Array.from({ length: 70 }, (_, i) => leafHash(createHash('sha256').update(`e${i}`).digest()));
const perfect: SubtreeLookup = (ref) =>
  perfectRoot(leaves.slice(ref.index * 2 ** ref.level, (ref.index + 1) * 2 ** ref.level));

describe('merkle tree (RFC 9162 shapes)', () => {
  it('hashes leaves and nodes with the 0x00 / 0x01 prefixes', () => {
    const entry = Buffer.from('abc');
    expect(leafHash(entry)).toEqual(
      createHash('sha256')
        .update(Buffer.from([0]))
        .update(entry)
        .digest(),
    );
    expect(EMPTY_ROOT.toString('hex')).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
  });

  it('computes the reference root for every size from perfect subtrees and from the frontier', () => {
    const frontier = new MerkleFrontier();
    const stored = new Map<string, Buffer>();
    for (let n = 0; n <= leaves.length; n++) {
      expect(treeRoot(n, perfect)).toEqual(mth(leaves.slice(0, n)));
      expect(frontier.root()).toEqual(mth(leaves.slice(0, n)));
      const restored = MerkleFrontier.deserialize(frontier.size, frontier.serialize());
      expect(restored.root()).toEqual(frontier.root());
      if (n < leaves.length) frontier.append(leaves[n] as Buffer, (ref, h) => stored.set(subtreeKey(ref), h));
    }
    // every completed perfect subtree was reported with its true hash
    for (const [key, hash] of stored) {
      const [level, index] = key.split(':').map(Number) as [number, number];
      expect(hash).toEqual(perfect({ level, index }));
    }
    expect(stored.get('6:0')).toEqual(mth(leaves.slice(0, 64)));
  });

  it('answers inclusion proofs that verify, and fail for another leaf, index or root', () => {
    for (let n = 1; n <= 40; n++) {
      const root = mth(leaves.slice(0, n));
      for (let m = 0; m < n; m++) {
        const path = inclusionPath(m, n, perfect);
        expect(verifyInclusion(m, n, leaves[m] as Buffer, path, root)).toBe(true);
        expect(verifyInclusion(m, n, leaves[m + 1] ?? EMPTY_ROOT, path, root)).toBe(false);
        if (n > 1) expect(verifyInclusion((m + 1) % n, n, leaves[m] as Buffer, path, root)).toBe(false);
        expect(verifyInclusion(m, n, leaves[m] as Buffer, path, EMPTY_ROOT)).toBe(false);
      }
    }
    expect(() => inclusionPath(5, 5, perfect)).toThrow(RangeError);
  });

  it('answers consistency proofs that verify, and fail against a rewritten history', () => {
    const forged = [...leaves];
    forged[2] = leafHash(Buffer.from('forged'));
    for (let second = 1; second <= 40; second++) {
      const secondRoot = mth(leaves.slice(0, second));
      for (let first = 0; first <= second; first++) {
        const proof = consistencyPath(first, second, perfect);
        const firstRoot = mth(leaves.slice(0, first));
        expect(verifyConsistency(first, second, firstRoot, secondRoot, proof)).toBe(true);
        if (first >= 3 && first < second) {
          const forgedRoot = mth(forged.slice(0, first));
          expect(verifyConsistency(first, second, forgedRoot, secondRoot, proof)).toBe(false);
        }
      }
    }
  });

  it('names the subtrees a proof needs, so they are fetched in one go', () => {
    const refs = collectSubtrees((get) => inclusionPath(37, 70, get));
    const fetched = new Map(refs.map((r) => [subtreeKey(r), perfect(r)]));
    expect(inclusionPath(37, 70, lookupFrom(fetched))).toEqual(inclusionPath(37, 70, perfect));
    expect(refs.length).toBeLessThanOrEqual(8);
    expect(() => treeRoot(70, lookupFrom(new Map()))).toThrow(/not fetched/);
  });
});
