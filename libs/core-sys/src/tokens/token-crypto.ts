import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { randomBase62 } from '@coffer/barrier';

export { randomBase62 };

/** Vault's service token prefix. */
export const SERVICE_TOKEN_PREFIX = 'hvs.';
/** Random characters after the prefix (Vault uses 24; more entropy costs nothing here). */
export const TOKEN_RANDOM_LENGTH = 32;
export const ACCESSOR_LENGTH = 24;

export const generateToken = (): string => SERVICE_TOKEN_PREFIX + randomBase62(TOKEN_RANDOM_LENGTH);
export const generateAccessor = (): string => randomBase62(ACCESSOR_LENGTH);
/** The per-cluster salt, created once and stored under the barrier. */
export const generateSalt = (): Buffer => randomBytes(32);

/**
 * Turns tokens into storage keys without storing tokens: `hash` (the lookup key of the read
 * model) and `ref` (the opaque per-token id other services key state by, e.g. cubbyhole) are
 * HMAC-SHA256 under two different keys derived from the cluster salt, so neither can be turned
 * into the other nor back into the token.
 */
export class TokenHasher {
  private readonly hashKey: Buffer;
  private readonly refKey: Buffer;

  constructor(private readonly salt: Buffer) {
    this.hashKey = Buffer.from(hkdfSync('sha256', salt, Buffer.alloc(0), 'coffer token hash v1', 32));
    this.refKey = Buffer.from(hkdfSync('sha256', salt, Buffer.alloc(0), 'coffer token ref v1', 32));
  }

  hash(token: string): string {
    return createHmac('sha256', this.hashKey).update(token, 'utf8').digest('hex');
  }

  ref(token: string): string {
    return createHmac('sha256', this.refKey).update(token, 'utf8').digest('base64url');
  }

  /** Key material for another use of the cluster secret (HKDF with its own label). */
  derive(label: string, length: number): Buffer {
    return Buffer.from(hkdfSync('sha512', this.salt, Buffer.alloc(0), label, length));
  }

  /** Constant-time check that `token` hashes to `storedHash`. */
  matches(token: string, storedHash: string): boolean {
    const a = Buffer.from(this.hash(token), 'hex');
    const b = Buffer.from(storedHash, 'hex');
    return a.length === b.length && timingSafeEqual(a, b);
  }
}

/** The client token of a request, from the headers a route forwards (Vault's precedence). */
export function tokenFromHeaders(headers: Record<string, string>): string | undefined {
  const direct = headers['x-service-token'] ?? headers['x-vault-token'];
  if (direct) return direct;
  const auth = headers['authorization'];
  const m = auth ? /^Bearer\s+(.+)$/i.exec(auth.trim()) : null;
  return m?.[1];
}

/** The prefixes Vault strips before it looks for a namespace suffix (SplitIDFromString). */
const TOKEN_PREFIXES = ['hvs.', 'hvb.', 's.', 'b.'];

/**
 * A token or accessor of a non-root namespace ends in ".<namespace id>", as in Vault; the root's
 * keep no suffix. Custom ids may not hold a "." (token.decider), so the suffix is unambiguous.
 */
export const withNamespaceSuffix = (id: string, namespaceId: string | undefined): string =>
  namespaceId ? `${id}.${namespaceId}` : id;

/**
 * The namespace id a token or accessor names by its suffix, or undefined without one (a root
 * token, or one issued before tokens carried suffixes).
 */
export function namespaceSuffixOf(id: string): string | undefined {
  const prefix = TOKEN_PREFIXES.find((p) => id.startsWith(p)) ?? '';
  const body = id.slice(prefix.length);
  const dot = body.lastIndexOf('.');
  if (dot < 0) return undefined;
  const suffix = body.slice(dot + 1);
  return suffix === '' ? undefined : suffix;
}

/** The id without its namespace suffix (a batch token's sealed body). */
export function withoutNamespaceSuffix(id: string): string {
  const suffix = namespaceSuffixOf(id);
  return suffix === undefined ? id : id.slice(0, id.length - suffix.length - 1);
}
