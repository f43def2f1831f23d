import { createPublicKey, verify as verifySignature, type KeyObject } from 'node:crypto';
import { chainHash } from './hash';
import { eventLeafHash, nodeHash } from './merkle-tree';

/**
 * The client's side of the history proofs: everything is recomputed from what the server sent,
 * nothing the server says is taken on trust except what a check below establishes. Used by
 * `coffer history verify`; tools/history-verify.ts is a second, independent implementation.
 *
 * Wire values are lower-case hex (hashes, signatures) and base64 (the event's ciphertext).
 */

/** A signed tree head: the server's Ed25519 signature over treeHeadMessage(). */
export interface SignedTreeHead {
  log: string;
  tree_size: number;
  root_hash: string;
  /** RFC 3339, when it was signed */
  timestamp: string;
  signature: string;
}

/** An event as stored (ciphertext and all), with the chain hash before it. */
export interface ProofEntry {
  wal: number;
  stream: string;
  stream_version: number;
  type: string;
  schema_version: number;
  /** base64 of the barrier ciphertext */
  payload: string;
  prev_hash: string;
  hash: string;
}

export interface InclusionProof {
  log: string;
  leaf_index: number;
  tree_size: number;
  audit_path: string[];
  root_hash: string;
  entry: ProofEntry;
  signed_tree_head: SignedTreeHead;
}

export interface ConsistencyProof {
  log: string;
  first: number;
  second: number;
  first_root: string;
  second_root: string;
  proof: string[];
  signed_tree_head: SignedTreeHead;
}

export type Verdict = { ok: true } | { ok: false; reason: string };

const HEX_HASH = /^[0-9a-f]{64}$/;
const isOdd = (n: number): boolean => n % 2 === 1;
const half = (n: number): number => Math.floor(n / 2);

function hashBytes(hex: string): Buffer | undefined {
  return HEX_HASH.test(hex) ? Buffer.from(hex, 'hex') : undefined;
}

/** The bytes a tree head signature covers. */
export function treeHeadMessage(head: Omit<SignedTreeHead, 'signature'>): Buffer {
  return Buffer.from(
    `coffer-tree-head-v1\n${head.log}\n${head.tree_size}\n${head.timestamp}\n${head.root_hash}`,
    'utf8',
  );
}

export function ed25519PublicKey(pem: string): KeyObject {
  const key = createPublicKey(pem);
  if (key.asymmetricKeyType !== 'ed25519') throw new Error('the history key is not an Ed25519 public key');
  return key;
}

export function verifyTreeHead(head: SignedTreeHead, publicKey: KeyObject): Verdict {
  if (!HEX_HASH.test(head.root_hash)) return { ok: false, reason: 'tree head root is not a SHA-256 hash' };
  const signature = Buffer.from(head.signature, 'hex');
  if (signature.length !== 64) return { ok: false, reason: 'tree head signature is malformed' };
  return verifySignature(null, treeHeadMessage(head), publicKey, signature)
    ? { ok: true }
    : { ok: false, reason: 'tree head signature does not verify' };
}

/** RFC 9162 2.1.3.2: does `path` lead from leaf `leafIndex` of a tree of `treeSize` to `root`? */
export function verifyInclusion(
  leafIndex: number,
  treeSize: number,
  leaf: Buffer,
  path: readonly Buffer[],
  root: Buffer,
): boolean {
  if (leafIndex < 0 || leafIndex >= treeSize) return false;
  let fn = leafIndex;
  let sn = treeSize - 1;
  let r = leaf;
  for (const p of path) {
    if (sn === 0) return false;
    if (isOdd(fn) || fn === sn) {
      r = nodeHash(p, r);
      if (!isOdd(fn)) {
        while (!isOdd(fn) && fn !== 0) {
          fn = half(fn);
          sn = half(sn);
        }
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 && r.equals(root);
}

/** RFC 9162 2.1.4.2: is the tree of `first` leaves (root firstRoot) a prefix of the one of `second`? */
export function verifyConsistency(
  first: number,
  second: number,
  firstRoot: Buffer,
  secondRoot: Buffer,
  proof: readonly Buffer[],
): boolean {
  if (first < 0 || first > second) return false;
  if (first === second) return proof.length === 0 && firstRoot.equals(secondRoot);
  // the empty tree is a prefix of every tree
  if (first === 0) return proof.length === 0;
  const path = isPowerOfTwo(first) ? [firstRoot, ...proof] : [...proof];
  let fn = first - 1;
  let sn = second - 1;
  while (isOdd(fn)) {
    fn = half(fn);
    sn = half(sn);
  }
  const [head, ...rest] = path;
  if (!head) return false;
  let fr = head;
  let sr = head;
  for (const c of rest) {
    if (sn === 0) return false;
    if (isOdd(fn) || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      while (!isOdd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 && fr.equals(firstRoot) && sr.equals(secondRoot);
}

function isPowerOfTwo(n: number): boolean {
  let x = n;
  while (x > 1 && x % 2 === 0) x /= 2;
  return x === 1;
}

/** The event's chain hash recomputed from its stored fields (so a changed byte shows). */
export function entryHash(entry: ProofEntry): string {
  return chainHash(entry.prev_hash, {
    wal: entry.wal,
    stream: entry.stream,
    streamVersion: entry.stream_version,
    type: entry.type,
    schemaVersion: entry.schema_version,
    payload: Buffer.from(entry.payload, 'base64'),
  });
}

/**
 * An inclusion proof, end to end: the event's bytes hash to its chain hash, its leaf is at
 * wal - 1, the audit path leads to the root, and the root is the one the signed tree head signs.
 */
export function verifyInclusionProof(proof: InclusionProof, publicKey: KeyObject): Verdict {
  const { entry } = proof;
  if (entry.wal !== proof.leaf_index + 1) return { ok: false, reason: 'the entry is not at the proven leaf' };
  if (entryHash(entry) !== entry.hash) {
    return { ok: false, reason: `event ${entry.wal}: its stored bytes do not hash to its chain hash` };
  }
  const sth = proof.signed_tree_head;
  if (sth.log !== proof.log || sth.tree_size !== proof.tree_size || sth.root_hash !== proof.root_hash) {
    return { ok: false, reason: 'the signed tree head is not the proof’s tree' };
  }
  const signed = verifyTreeHead(sth, publicKey);
  if (!signed.ok) return signed;
  const path = proof.audit_path.map(hashBytes);
  const root = hashBytes(proof.root_hash);
  if (!root || path.some((p) => p === undefined)) return { ok: false, reason: 'malformed hash in the proof' };
  const included = verifyInclusion(
    proof.leaf_index,
    proof.tree_size,
    eventLeafHash(entry.hash),
    path as Buffer[],
    root,
  );
  return included
    ? { ok: true }
    : { ok: false, reason: `event ${entry.wal} is not in the signed tree of ${proof.tree_size}` };
}

/**
 * A consistency proof against a tree head the client already trusts (size + root it saved): the
 * server's current signed tree extends it without rewriting any of its events.
 */
export function verifyConsistencyProof(
  proof: ConsistencyProof,
  trusted: { tree_size: number; root_hash: string },
  publicKey: KeyObject,
): Verdict {
  if (proof.first !== trusted.tree_size || proof.first_root !== trusted.root_hash) {
    return { ok: false, reason: 'the proof does not start at the trusted tree head' };
  }
  const sth = proof.signed_tree_head;
  if (sth.log !== proof.log || sth.tree_size !== proof.second || sth.root_hash !== proof.second_root) {
    return { ok: false, reason: 'the signed tree head is not the proof’s second tree' };
  }
  const signed = verifyTreeHead(sth, publicKey);
  if (!signed.ok) return signed;
  const nodes = proof.proof.map(hashBytes);
  const first = hashBytes(proof.first_root);
  const second = hashBytes(proof.second_root);
  if (!first || !second || nodes.some((n) => n === undefined)) {
    return { ok: false, reason: 'malformed hash in the proof' };
  }
  return verifyConsistency(proof.first, proof.second, first, second, nodes as Buffer[])
    ? { ok: true }
    : { ok: false, reason: `the tree of ${proof.second} does not extend the trusted tree of ${proof.first}` };
}
