import { createHash } from 'node:crypto';

/** prevHash of the first event in a log */
export const GENESIS_HASH = '0'.repeat(64);

export interface HashedFields {
  wal: number;
  stream: string;
  streamVersion: number;
  type: string;
  schemaVersion: number;
  /** the barrier ciphertext as stored */
  payload: Uint8Array;
}

function u64(n: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(n));
  return b;
}

function field(bytes: Uint8Array): Buffer[] {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(bytes.byteLength);
  return [len, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)];
}

/**
 * hex SHA-256 over (prevHash, wal, stream, streamVersion, type, schemaVersion, ciphertext).
 * Variable-length fields are length-prefixed (u32be) and integers fixed-width (u64be), so no two
 * different events serialise to the same bytes. It covers the ciphertext, not the plaintext, so
 * the chain can be verified (and replicated) while sealed.
 */
export function chainHash(prevHash: string, e: HashedFields): string {
  const h = createHash('sha256');
  for (const part of [
    ...field(Buffer.from(prevHash, 'utf8')),
    u64(e.wal),
    ...field(Buffer.from(e.stream, 'utf8')),
    u64(e.streamVersion),
    ...field(Buffer.from(e.type, 'utf8')),
    u64(e.schemaVersion),
    ...field(e.payload),
  ]) {
    h.update(part);
  }
  return h.digest('hex');
}
