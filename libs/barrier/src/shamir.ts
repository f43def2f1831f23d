import { randomBytes } from 'node:crypto';
import { combine, split } from 'shamir-secret-sharing';
import { DomainError } from '@coffer/contracts';

/** Length of the root key that unlocks the keyring (AES-256). */
export const ROOT_KEY_LENGTH = 32;

export function generateRootKey(): Buffer {
  return randomBytes(ROOT_KEY_LENGTH);
}

/**
 * Vault's seal configuration rules (vault/seal_config.go `Validate`), with its messages, so the
 * init and rekey endpoints can answer exactly like Vault.
 */
export function validateShamirConfig(shares: number, threshold: number): void {
  const fail = (message: string): never => {
    throw new DomainError('invalid_request', message);
  };
  if (!Number.isInteger(shares) || shares < 1) fail('shares must be at least one');
  if (!Number.isInteger(threshold) || threshold < 1) fail('threshold must be at least one');
  if (shares > 1 && threshold === 1) fail('threshold must be greater than one for multiple shares');
  if (shares > 255) fail('shares must be less than 256');
  if (threshold > 255) fail('threshold must be less than 256');
  if (threshold > shares) fail('threshold cannot be larger than shares');
}

// The package checks `value.constructor === Uint8Array`, which rejects Buffers: always hand it
// plain Uint8Array copies.
const plain = (bytes: Uint8Array): Uint8Array => new Uint8Array(bytes);

/**
 * Splits the root key into `shares` unseal keys, `threshold` of which recombine it. Like Vault,
 * a 1-of-1 configuration returns the root key itself as the single share (Shamir needs >= 2).
 * Each share of a split is the key length + 1 byte (the x coordinate), as in Vault.
 */
export async function splitRootKey(
  rootKey: Uint8Array,
  shares: number,
  threshold: number,
): Promise<Buffer[]> {
  validateShamirConfig(shares, threshold);
  if (rootKey.byteLength === 0) throw new DomainError('invalid_request', 'root key cannot be empty');
  if (shares === 1) return [Buffer.from(rootKey)];
  const parts = await split(plain(rootKey), shares, threshold);
  return parts.map((p) => Buffer.from(p));
}

/**
 * Recombines unseal key shares. One share is taken as the key itself (the 1-of-1 case). A wrong
 * set of shares does not fail here: it yields a wrong key, which decrypting the keyring detects.
 */
export async function combineShares(shares: readonly Uint8Array[]): Promise<Buffer> {
  const first = shares[0];
  if (first === undefined) throw new DomainError('invalid_request', 'no key shares given');
  if (shares.length === 1) return Buffer.from(first);
  if (shares.length > 255) throw new DomainError('invalid_request', 'too many key shares');
  if (shares.some((s) => s.byteLength !== first.byteLength || s.byteLength < 2)) {
    throw new DomainError('invalid_request', 'all key shares must have the same length');
  }
  const xs = new Set(shares.map((s) => s[s.byteLength - 1]));
  if (xs.size !== shares.length) throw new DomainError('invalid_request', 'duplicate key share');
  return Buffer.from(await combine(shares.map(plain)));
}

/**
 * Decodes an unseal key share as Vault's sys/unseal does: hex first, accepted only when it
 * decodes to 16..33 bytes (so a base64 string that happens to be valid hex is not misread),
 * otherwise standard base64.
 */
export function decodeKeyShare(input: string): Buffer {
  const invalid = (): never => {
    throw new DomainError('invalid_request', "'key' must be a valid hex or base64 string");
  };
  if (/^(?:[0-9a-fA-F]{2})+$/.test(input)) {
    const bytes = Buffer.from(input, 'hex');
    if (bytes.length >= 16 && bytes.length <= 33) return bytes;
  }
  // Go's base64.StdEncoding is strict: padded, no whitespace.
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(input) || input.length % 4 !== 0) return invalid();
  const bytes = Buffer.from(input, 'base64');
  if (bytes.length === 0) return invalid();
  return bytes;
}
