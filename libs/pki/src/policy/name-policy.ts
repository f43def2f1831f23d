/**
 * Vault's name policy for roles (builtin/logical/pki/cert_util.go validateNames,
 * validateOtherSANs, validateURISAN), pure. Every requested name must pass: the first one that
 * does not is returned and the whole request is denied.
 *
 * Stricter than Vault on purpose, where the engine's contract asks for it: with
 * enforce_hostnames, names must be plain lowercase ASCII (no IDN, no punycode "xn--" labels, no
 * uppercase), because Vault's IDNA conversion quietly rewrites them.
 */
export interface NamePolicy {
  allow_localhost: boolean;
  allowed_domains: string[];
  allow_bare_domains: boolean;
  allow_subdomains: boolean;
  allow_glob_domains: boolean;
  allow_wildcard_certificates: boolean;
  allow_any_name: boolean;
  enforce_hostnames: boolean;
  allow_token_displayname: boolean;
}

const HOSTNAME =
  /^(\*\.)?(([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])\.)*([A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9-]*[A-Za-z0-9])\.?$/;

/** Vault's hostnameRegex alone: whether a name goes into the DNS SANs at all. */
export const matchesHostnamePattern = (name: string): boolean =>
  /^[\x21-\x7e]+$/.test(name) && HOSTNAME.test(name);

/** ryanuber/go-glob: `*` matches any run of characters, nothing else is special. */
export function glob(pattern: string, subject: string): boolean {
  if (pattern === '*') return true;
  const parts = pattern.split('*');
  if (parts.length === 1) return pattern === subject;
  const first = parts[0] ?? '';
  const last = parts[parts.length - 1] ?? '';
  if (!subject.startsWith(first)) return false;
  let rest = subject.slice(first.length);
  for (const part of parts.slice(1, -1)) {
    const at = rest.indexOf(part);
    if (at < 0) return false;
    rest = rest.slice(at + part.length);
  }
  return rest.endsWith(last);
}

/**
 * Host-name syntax as enforce_hostnames checks it (Vault: IDNA with StrictDomainName and
 * VerifyDNSLength, then the host-name pattern), with the ASCII-only rule above.
 */
export function isValidHostname(name: string): boolean {
  if (name === '' || name.length > 253) return false;
  if (!/^[\x21-\x7e]+$/.test(name)) return false;
  if (name !== name.toLowerCase()) return false;
  const labels = name.replace(/\.$/, '').split('.');
  if (labels.some((l) => l.length === 0 || l.length > 63 || l.startsWith('xn--'))) return false;
  return HOSTNAME.test(name);
}

const eqFold = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

function nameAllowed(policy: NamePolicy, name: string, displayName: string): boolean {
  let sanitized = name;
  let emailDomain = name;
  let isEmail = false;
  let isWildcard = false;
  if (sanitized.includes('@')) {
    const split = sanitized.split('@');
    if (split.length !== 2) return false;
    sanitized = split[1] ?? '';
    emailDomain = sanitized;
    isEmail = true;
  }
  if (sanitized.startsWith('*.')) {
    sanitized = sanitized.slice(2);
    isWildcard = true;
  }
  if (isEmail && isWildcard) return false;
  if (isWildcard && !policy.allow_wildcard_certificates) return false;
  if (policy.enforce_hostnames && !isValidHostname(sanitized)) return false;
  if (policy.allow_any_name) return true;

  if (policy.allow_localhost) {
    if (sanitized === 'localhost' || sanitized === 'localdomain') return true;
    if (policy.allow_subdomains) {
      for (const base of ['localhost', 'localdomain']) {
        if (sanitized.endsWith(`.${base}`) || (isWildcard && sanitized === base)) return true;
      }
    }
  }

  if (policy.allow_token_displayname && displayName !== '') {
    if (name === displayName) return true;
    if (policy.allow_subdomains) {
      if (isEmail && displayName.includes('@')) {
        const host = displayName.split('@')[1];
        if (host !== undefined && sanitized.endsWith(`.${host}`)) return true;
      }
      if (sanitized.endsWith(`.${displayName}`) || (isWildcard && sanitized === displayName)) return true;
    }
  }

  for (const domain of policy.allowed_domains) {
    if (domain === '') continue;
    if (policy.allow_bare_domains && (eqFold(name, domain) || (isEmail && eqFold(emailDomain, domain))))
      return true;
    if (
      policy.allow_subdomains &&
      (sanitized.endsWith(`.${domain}`) || (isWildcard && eqFold(sanitized, domain)))
    )
      return true;
    if (policy.allow_glob_domains && domain.includes('*') && glob(domain, name)) return true;
  }
  return false;
}

/** The first name the role does not allow, or undefined when all pass. */
export function firstDeniedName(
  policy: NamePolicy,
  names: readonly string[],
  displayName = '',
): string | undefined {
  return names.find((name) => !nameAllowed(policy, name, displayName));
}

/** "<oid>;UTF8:<value>" entries by OID; Vault's parseOtherSANs texts on a malformed entry. */
export function parseOtherSans(entries: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const entry of entries) {
    const semi = entry.indexOf(';');
    if (semi < 0) throw new Error(`expected a semicolon in other SAN "${entry}"`);
    const oid = entry.slice(0, semi);
    const typed = entry.slice(semi + 1);
    const colon = typed.indexOf(':');
    if (colon < 0) throw new Error(`expected a colon in other SAN "${entry}"`);
    const type = typed.slice(0, colon).toLowerCase();
    if (type !== 'utf8' && type !== 'utf-8')
      throw new Error(`only utf8 other SANs are supported; found non-supported type in other SAN "${entry}"`);
    out.set(oid, [...(out.get(oid) ?? []), typed.slice(colon + 1)]);
  }
  return out;
}

/** What is wrong with requested other SANs under the role's allowed_other_sans, if anything. */
export function otherSanViolation(
  allowedEntries: readonly string[],
  requested: ReadonlyMap<string, string[]>,
): string | undefined {
  if (allowedEntries.length === 1 && allowedEntries[0] === '*') return undefined;
  const allowed = parseOtherSans(allowedEntries);
  for (const [oid, values] of requested) {
    const patterns = allowed.get(oid);
    if (!patterns) return `other SAN OID ${oid} not allowed by this role`;
    for (const value of values) {
      if (!patterns.some((p) => glob(p, value)))
        return `other SAN ${value} not allowed for OID ${oid} by this role`;
    }
  }
  return undefined;
}

/** A URI SAN passes when one of the role's allowed_uri_sans globs matches it. */
export const uriSanAllowed = (allowed: readonly string[], uri: string): boolean =>
  allowed.some((p) => glob(p, uri));
