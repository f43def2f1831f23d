import { isIP } from 'node:net';
import { invalidRequest } from '@coffer/contracts';
import type { PkiIssueBody, PkiRoleData } from '@coffer/contracts/pki';
import type { SubjectFields } from '../crypto/certificate-builder';
import type { ParsedCsr } from '../crypto/csr';
import { emptySans, type SanSet } from '../crypto/general-names';
import {
  firstDeniedName,
  glob as globMatch,
  matchesHostnamePattern,
  otherSanViolation,
  parseOtherSans,
  uriSanAllowed,
} from './name-policy';
import { extKeyUsageOids, keyUsageFlags, policyOids } from './usages';

/** What a certificate will say, decided from the role, the request and (when signing) the CSR. */
export interface CertificatePlan {
  subject: SubjectFields;
  sans: SanSet;
  notBefore: Date;
  notAfter: Date;
  keyUsage: number;
  extKeyUsage: string[];
  policyOids: string[];
  basicConstraintsValidForNonCa: boolean;
  warnings: string[];
}

export interface PlanInput {
  role: PkiRoleData;
  body: PkiIssueBody;
  csr?: ParsedCsr;
  /** the mount's TTLs in seconds, system values already filled in */
  mountTtl: { defaultTtl: number; maxTtl: number };
  now: Date;
  /** the issuing CA's notAfter; undefined for a self-signed root */
  caNotAfter?: Date;
  displayName?: string;
}

const unique = (values: readonly string[]): string[] => [...new Set(values.filter((v) => v !== ''))];

/** Go's time.RFC3339Nano rendering of a date (what Vault's messages print). */
const rfc3339 = (d: Date): string => d.toISOString().replace(/\.000Z$/, 'Z');

function names(input: PlanInput, cn: string): { dns: string[]; email: string[] } {
  const { role, body, csr } = input;
  const dns: string[] = [];
  const email: string[] = [];
  if (csr && role.use_csr_sans) {
    dns.push(...csr.sans.dns);
    email.push(...csr.sans.email);
  }
  const add = (name: string) => {
    if (name.includes('@')) email.push(name);
    // Vault adds a name as DNS only when it looks like a host name; others are checked as given.
    else dns.push(name);
  };
  if (cn !== '' && !body.exclude_cn_from_sans) add(cn);
  if (!csr || !role.use_csr_sans) for (const n of [...new Set(body.alt_names)].sort()) add(n);
  return { dns: unique(dns), email: unique(email) };
}

function checkNames(input: PlanInput, cn: string, dns: string[], email: string[]): void {
  const { role } = input;
  const display = role.allow_token_displayname ? (input.displayName ?? '') : '';
  if (cn !== '' && !role.cn_validations.includes('disabled')) {
    const bad = firstDeniedName(role, [cn], display);
    if (bad !== undefined) throw invalidRequest(`common name ${bad} not allowed by this role`);
  }
  const badDns = firstDeniedName(role, dns, display);
  if (badDns !== undefined) throw invalidRequest(`subject alternate name ${badDns} not allowed by this role`);
  const badEmail = firstDeniedName(role, email, display);
  if (badEmail !== undefined) throw invalidRequest(`email address ${badEmail} not allowed by this role`);
}

function otherSans(input: PlanInput): SanSet['other'] {
  const { role, body, csr } = input;
  const entries = [...body.other_sans];
  if (csr && role.use_csr_sans) entries.push(...csr.sans.other.map((o) => `${o.oid};UTF-8:${o.value}`));
  if (entries.length === 0) return [];
  let requested: Map<string, string[]>;
  try {
    requested = parseOtherSans(entries);
  } catch (error) {
    throw invalidRequest(`could not parse requested other SAN: ${(error as Error).message}`);
  }
  for (const oid of requested.keys())
    if (!/^[0-2](\.\d+)+$/.test(oid))
      throw invalidRequest(`could not parse requested other SAN: bad OID ${oid}`);
  let violation: string | undefined;
  try {
    violation = otherSanViolation(role.allowed_other_sans, requested);
  } catch (error) {
    throw invalidRequest(`error parsing role's allowed SANs: ${(error as Error).message}`);
  }
  if (violation) throw invalidRequest(violation);
  return [...requested].flatMap(([oid, values]) => values.map((value) => ({ oid, value })));
}

function ipSans(input: PlanInput): string[] {
  const { role, body, csr } = input;
  if (csr && role.use_csr_sans) {
    if (csr.sans.ip.length > 0 && !role.allow_ip_sans)
      throw invalidRequest(
        'IP Subject Alternative Names are not allowed in this role, but was provided some via CSR',
      );
    return csr.sans.ip;
  }
  if (body.ip_sans.length > 0 && !role.allow_ip_sans)
    throw invalidRequest(
      `IP Subject Alternative Names are not allowed in this role, but was provided [${body.ip_sans.join(' ')}]`,
    );
  for (const ip of body.ip_sans)
    if (isIP(ip) === 0) throw invalidRequest(`the value '${ip}' is not a valid IP address`);
  return unique(body.ip_sans);
}

function uriSans(input: PlanInput): string[] {
  const { role, body, csr } = input;
  const fromCsr = csr !== undefined && role.use_csr_sans;
  const uris = fromCsr ? csr.sans.uri : body.uri_sans;
  if (uris.length === 0) return [];
  const via = fromCsr ? 'via CSR' : 'via the API';
  if (role.allowed_uri_sans.length === 0)
    throw invalidRequest(
      `URI Subject Alternative Names are not allowed in this role, but were provided ${via}`,
    );
  for (const uri of uris) {
    if (!uriSanAllowed(role.allowed_uri_sans, uri))
      throw invalidRequest(
        `URI Subject Alternative Names were provided ${via} which are not valid for this role`,
      );
    if (!URL.canParse(uri))
      throw invalidRequest(`the provided URI Subject Alternative Name '${uri}' is not a valid URI`);
  }
  return unique(uris);
}

function validity(input: PlanInput): { notBefore: Date; notAfter: Date; warnings: string[] } {
  const { role, body, now } = input;
  const warnings: string[] = [];
  const notAfterText = role.not_after !== '' ? role.not_after : body.not_after;
  if (body.ttl > 0 && notAfterText !== '')
    throw invalidRequest(
      'Either ttl or not_after should be provided. Both should not be provided in the same request.',
    );
  let ttl = body.ttl > 0 ? body.ttl : role.ttl;
  const maxTtl = role.max_ttl > 0 ? role.max_ttl : input.mountTtl.maxTtl;
  if (ttl === 0) ttl = input.mountTtl.defaultTtl;
  if (ttl > maxTtl) {
    if (body.ttl > 0)
      warnings.push(
        `TTL "${body.ttl}s" is longer than permitted maxTTL "${maxTtl}s", so certificate will be truncated`,
      );
    ttl = maxTtl;
  }
  let notAfter: Date;
  if (notAfterText !== '') {
    notAfter = new Date(notAfterText);
    if (Number.isNaN(notAfter.getTime()) || !/^\d{4}-\d\d-\d\dT/.test(notAfterText))
      throw invalidRequest(`parsing time "${notAfterText}" as "2006-01-02T15:04:05Z07:00": cannot parse`);
  } else notAfter = new Date(now.getTime() + ttl * 1000);
  if (input.caNotAfter && notAfter > input.caNotAfter)
    throw invalidRequest(
      `cannot satisfy request, as TTL would result in notAfter ${rfc3339(notAfter)} that is beyond the expiration of the CA certificate at ${rfc3339(input.caNotAfter)}`,
    );
  const notBefore = new Date(now.getTime() - role.not_before_duration * 1000);
  return { notBefore, notAfter, warnings };
}

/** Vault's generateCreationBundle: every check of a request against its role, then the plan. */
export function planCertificate(input: PlanInput): CertificatePlan {
  const { role, body, csr } = input;
  let cn = csr && role.use_csr_common_name ? csr.commonName : '';
  if (cn === '') cn = body.common_name;
  if (cn === '' && role.require_cn)
    throw invalidRequest(
      'the common_name field is required, or must be provided in a CSR with "use_csr_common_name" set to true, unless "require_cn" is set to false',
    );
  const serialNumber = body.serial_number !== '' ? body.serial_number : (csr?.subjectSerialNumber ?? '');
  const { dns, email } = names(input, cn);
  checkNames(input, cn, dns, email);
  if (serialNumber !== '' && role.allowed_serial_numbers.length > 0) {
    if (
      !role.allowed_serial_numbers.some(
        (p) => p === serialNumber || (p.includes('*') && globMatch(p, serialNumber)),
      )
    )
      throw invalidRequest(`serial_number ${serialNumber} not allowed by this role`);
  }
  const sans: SanSet = {
    ...emptySans(),
    // names that are not host names stay in the CN only (Vault's hostnameRegex check)
    dns: dns.filter(matchesHostnamePattern),
    email,
    other: otherSans(input),
    ip: ipSans(input),
    uri: uriSans(input),
  };
  const policies = policyOids(role.policy_identifiers);
  if (policies.bad !== undefined) throw invalidRequest(`invalid policy identifier ${policies.bad}`);
  const { notBefore, notAfter, warnings } = validity(input);
  return {
    subject: {
      commonName: cn,
      serialNumber,
      country: unique(role.country),
      province: unique(role.province),
      locality: unique(role.locality),
      streetAddress: unique(role.street_address),
      postalCode: unique(role.postal_code),
      organization: unique(role.organization),
      ou: unique(role.ou),
      userIds: unique(body.user_ids),
    },
    sans,
    notBefore,
    notAfter,
    keyUsage: keyUsageFlags(role.key_usage),
    extKeyUsage: extKeyUsageOids(role),
    policyOids: policies.oids,
    basicConstraintsValidForNonCa: role.basic_constraints_valid_for_non_ca,
    warnings,
  };
}
