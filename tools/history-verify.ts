/**
 * Standalone verifier of Coffer's history proofs (docs/history.md), on purpose independent of the
 * rest of the repository: it imports nothing but node:crypto and uses fetch, so an auditor can read
 * it in one sitting, copy it out, and trust nothing the server computed.
 *
 *   node -r ./tools/register.js tools/history-verify.ts --addr http://127.0.0.1:8200 --token $T \
 *     [--log core_sys] [--wal 1,2,3] [--public-key key.pem] [--trusted-size N --trusted-root HEX]
 *
 * Exit 0 when every check passes, 1 (with the reason on stderr) when one fails, 2 on bad usage.
 */
import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';

type Json = Record<string, unknown>;

const sha256 = (...parts: Uint8Array[]): Buffer => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};
const leaf = (entry: Uint8Array): Buffer => sha256(Buffer.from([0]), entry);
const node = (l: Uint8Array, r: Uint8Array): Buffer => sha256(Buffer.from([1]), l, r);

/** The event's chain hash: SHA-256 over length-prefixed strings and u64 integers (hash.ts in event-store). */
function chainHash(e: Json): string {
  const u64 = (n: unknown) => {
    const b = Buffer.alloc(8);
    b.writeBigUInt64BE(BigInt(Number(n)));
    return b;
  };
  const field = (bytes: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(bytes.length);
    return [len, bytes];
  };
  const text = (v: unknown) => Buffer.from(String(v), 'utf8');
  return sha256(
    ...field(text(e.prev_hash)),
    u64(e.wal),
    ...field(text(e.stream)),
    u64(e.stream_version),
    ...field(text(e.type)),
    u64(e.schema_version),
    ...field(Buffer.from(String(e.payload), 'base64')),
  ).toString('hex');
}

/** RFC 9162 section 2.1.3.2. */
function inclusionHolds(
  index: number,
  size: number,
  leafHash: Buffer,
  path: Buffer[],
  root: Buffer,
): boolean {
  if (index >= size) return false;
  let fn = index;
  let sn = size - 1;
  let r = leafHash;
  for (const p of path) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = node(p, r);
      while (fn % 2 === 0 && fn !== 0) [fn, sn] = [Math.floor(fn / 2), Math.floor(sn / 2)];
    } else r = node(r, p);
    [fn, sn] = [Math.floor(fn / 2), Math.floor(sn / 2)];
  }
  return sn === 0 && r.equals(root);
}

/** RFC 9162 section 2.1.4.2. */
function consistencyHolds(m: number, n: number, mRoot: Buffer, nRoot: Buffer, proof: Buffer[]): boolean {
  if (m === n) return proof.length === 0 && mRoot.equals(nRoot);
  if (m === 0) return proof.length === 0;
  if (m > n) return false;
  let pow = 1;
  while (pow < m) pow *= 2;
  const path = pow === m ? [mRoot, ...proof] : proof;
  let fn = m - 1;
  let sn = n - 1;
  while (fn % 2 === 1) [fn, sn] = [Math.floor(fn / 2), Math.floor(sn / 2)];
  const first = path[0];
  if (!first) return false;
  let fr = first;
  let sr = first;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = node(c, fr);
      sr = node(c, sr);
      while (fn % 2 === 0 && fn !== 0) [fn, sn] = [Math.floor(fn / 2), Math.floor(sn / 2)];
    } else sr = node(sr, c);
    [fn, sn] = [Math.floor(fn / 2), Math.floor(sn / 2)];
  }
  return sn === 0 && fr.equals(mRoot) && sr.equals(nRoot);
}

function signed(head: Json, key: KeyObject): boolean {
  const message = `coffer-tree-head-v1\n${String(head.log)}\n${Number(head.tree_size)}\n${String(head.timestamp)}\n${String(head.root_hash)}`;
  return verify(null, Buffer.from(message, 'utf8'), key, Buffer.from(String(head.signature), 'hex'));
}

class Failed extends Error {}
const must = (ok: boolean, what: string): void => {
  if (!ok) throw new Failed(what);
};
const hashes = (v: unknown): Buffer[] =>
  Array.isArray(v) ? v.map((h) => Buffer.from(String(h), 'hex')) : [];

function parseArgs(argv: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i < argv.length; i += 2) {
    const k = argv[i] ?? '';
    const v = argv[i + 1];
    if (!k.startsWith('--') || v === undefined) throw new Error(`bad argument ${k}`);
    out.set(k.slice(2), v);
  }
  return out;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const addr = (args.get('addr') ?? process.env.COFFER_ADDR ?? 'http://127.0.0.1:8200').replace(/\/+$/, '');
  const token = args.get('token') ?? process.env.COFFER_TOKEN ?? '';
  const log = args.get('log') ?? 'core_sys';
  const get = async (path: string, query: Record<string, string | number> = {}): Promise<Json> => {
    const qs = new URLSearchParams(
      Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]),
    ).toString();
    const res = await fetch(`${addr}/v1/sys/history/${path}${qs ? `?${qs}` : ''}`, {
      headers: { 'X-Service-Token': token },
    });
    const body = (await res.json()) as Json;
    if (!res.ok) throw new Failed(`GET ${path}: ${res.status} ${JSON.stringify(body.errors)}`);
    return body.data as Json;
  };

  const pinned = args.get('public-key');
  const served = String((await get('key')).public_key);
  if (pinned !== undefined)
    must(readFileSync(pinned, 'utf8').trim() === served.trim(), 'the server key is not the pinned one');
  const key = createPublicKey(pinned !== undefined ? readFileSync(pinned, 'utf8') : served);

  const head = await get('tree-head', { log });
  must(signed(head, key), 'the tree head signature does not verify');
  const size = Number(head.tree_size);
  const root = Buffer.from(String(head.root_hash), 'hex');

  for (const part of (args.get('wal') ?? '').split(',').filter((s) => s !== '')) {
    const wal = Number(part);
    const p = await get('proof', { log, wal, tree_size: size });
    const entry = p.entry as Json;
    must(Number(entry.wal) === wal && Number(p.leaf_index) === wal - 1, `event ${wal}: wrong leaf`);
    must(chainHash(entry) === entry.hash, `event ${wal}: its stored bytes do not hash to its chain hash`);
    must(
      inclusionHolds(wal - 1, size, leaf(Buffer.from(String(entry.hash), 'hex')), hashes(p.audit_path), root),
      `event ${wal} is not in the signed tree of ${size}`,
    );
  }

  const trustedSize = args.get('trusted-size');
  const trustedRoot = args.get('trusted-root');
  if (trustedSize !== undefined && trustedRoot !== undefined) {
    const p = await get('consistency', { log, from: trustedSize, to: size });
    must(
      consistencyHolds(Number(trustedSize), size, Buffer.from(trustedRoot, 'hex'), root, hashes(p.proof)),
      `the tree of ${size} does not extend the trusted tree of ${trustedSize}`,
    );
  }
  process.stdout.write(`verified: log ${log}, tree_size ${size}, root ${String(head.root_hash)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`verification failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = error instanceof Failed ? 1 : 2;
});
