import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniform base62 string from the CSPRNG (rejection sampling: no modulo bias), like Vault's base62.Random. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte >= 248) continue; // 248 = 62 * 4
      out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}
