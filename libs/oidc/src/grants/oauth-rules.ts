import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Pure rules of the authorization code flow: redirect URI matching, PKCE, scope parsing and
 * client authentication headers.
 */

/**
 * A redirect URI is allowed only when a registered one equals it character for character (the
 * contract: "an exact match"): no normalisation of case, trailing slash, port, userinfo,
 * percent-encoding or loopback address, so a near miss is never redirected to.
 */
export function redirectUriAllowed(uri: string, registered: readonly string[]): boolean {
  if (!URL.canParse(uri)) return false;
  return registered.some((candidate) => constantTimeEqual(candidate, uri));
}

export type ChallengeMethod = 'plain' | 'S256';

/** The PKCE challenge of a verifier (RFC 7636 section 4.2). */
export function codeChallengeOf(verifier: string, method: ChallengeMethod): string {
  return method === 'plain' ? verifier : createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** Whether `verifier` answers the challenge bound to a code (constant time). */
export function pkceVerified(verifier: string, challenge: string, method: ChallengeMethod): boolean {
  return constantTimeEqual(codeChallengeOf(verifier, method), challenge);
}

/** RFC 7636: 43 to 128 characters of [A-Z a-z 0-9 - . _ ~] (Vault checks the length). */
export const validChallenge = (challenge: string): boolean =>
  challenge.length >= 43 && challenge.length <= 128;

export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  // compare equal lengths only, but always spend a comparison
  if (left.length !== right.length) {
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}

/** The requested scopes: space-delimited, deduplicated, sorted (Vault's ParseDedupAndSortStrings). */
export function parseScopes(scope: string): string[] {
  return [...new Set(scope.split(' ').filter((s) => s !== ''))].sort();
}

/**
 * client_secret_basic: `Authorization: Basic base64(urlencode(id):urlencode(secret))`, both
 * parts form-URL-decoded (RFC 6749 section 2.3.1). Undefined when the header is not Basic or
 * is malformed.
 */
export function basicCredentials(header: string | undefined): { id: string; secret: string } | undefined {
  if (!header) return undefined;
  const match = /^basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header.trim());
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  try {
    return { id: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    return undefined;
  }
}

const formDecode = (s: string): string => decodeURIComponent(s.replace(/\+/g, ' '));

/** The bearer token of an `Authorization` header, if that is what it carries. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^bearer\s+(\S+)\s*$/i.exec(header?.trim() ?? '');
  return match?.[1];
}
