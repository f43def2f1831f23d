import { z } from 'zod';
import { weakBool, weakDuration, weakInt, weakString, weakStringList } from '../fields/weak-fields';

/**
 * pki/roles/:name (Vault's roleEntry, builtin/logical/pki/path_roles.go). A write replaces the
 * role as a whole, so every field carries Vault's default here.
 */
const bool = (def: boolean, description: string) => weakBool({ default: def, description });
const list = (description: string, def: string[] = []) => weakStringList({ default: def, description });

/** The subject attributes a role (or a CA request) writes into certificates. */
export const subjectListFields = {
  ou: list('OU of the subject'),
  organization: list('O of the subject'),
  country: list('C of the subject'),
  locality: list('L of the subject'),
  province: list('ST of the subject'),
  street_address: list('Street address of the subject'),
  postal_code: list('Postal code of the subject'),
};

export const DEFAULT_KEY_USAGE = ['DigitalSignature', 'KeyAgreement', 'KeyEncipherment'];

export const pkiRoleBodySchema = z.object({
  ttl: weakDuration({
    default: 0,
    description: 'Default TTL; unset uses the mount default, capped by max_ttl',
  }),
  max_ttl: weakDuration({ default: 0, description: 'Maximum TTL; unset uses the mount maximum' }),
  allow_localhost: bool(true, 'Allow "localhost" and "localdomain" as names'),
  allowed_domains: list('Domains the role issues for (with allow_bare_domains / allow_subdomains)'),
  allowed_domains_template: bool(false, 'allowed_domains may hold identity templates'),
  allow_bare_domains: bool(false, 'Allow the allowed_domains themselves'),
  allow_subdomains: bool(false, 'Allow subdomains of allowed_domains, wildcards included'),
  allow_glob_domains: bool(false, 'allowed_domains may hold glob patterns'),
  allow_wildcard_certificates: bool(true, 'Allow wildcard names ("*.example.com")'),
  allow_any_name: bool(false, 'Allow any name (enforce_hostnames still applies)'),
  enforce_hostnames: bool(true, 'Only valid host names for the CN, DNS SANs and email host parts'),
  allow_ip_sans: bool(true, 'Allow IP SANs'),
  allowed_uri_sans: list('URI SANs allowed (globs allowed)'),
  allowed_uri_sans_template: bool(false, 'allowed_uri_sans may hold identity templates'),
  allowed_other_sans: list('Other SANs allowed: "<oid>;UTF8:<value>" (value may be *), or a single *'),
  allowed_serial_numbers: list('Subject serial numbers allowed (globs allowed)'),
  allowed_user_ids: list('User IDs allowed (globs allowed)'),
  server_flag: bool(true, 'Add the ServerAuth extended key usage'),
  client_flag: bool(true, 'Add the ClientAuth extended key usage'),
  code_signing_flag: bool(false, 'Add the CodeSigning extended key usage'),
  email_protection_flag: bool(false, 'Add the EmailProtection extended key usage'),
  key_type: weakString({ default: 'rsa', description: '"rsa", "ec", "ed25519", or "any" (signing only)' }),
  key_bits: weakInt({
    default: 0,
    description: 'Key size; 0 is the type default (2048 for rsa, 256 for ec)',
  }),
  signature_bits: weakInt({ default: 0, description: 'Hash size of the signature: 256, 384 or 512' }),
  use_pss: bool(false, 'Sign with RSA-PSS instead of PKCS#1 v1.5'),
  key_usage: list('Key usages (case-insensitive); empty means none', DEFAULT_KEY_USAGE),
  ext_key_usage: list('Extended key usages (case-insensitive)'),
  ext_key_usage_oids: list('Extended key usage OIDs'),
  use_csr_common_name: bool(true, 'Signing uses the CSR common name'),
  use_csr_sans: bool(true, 'Signing uses the CSR SANs'),
  ...subjectListFields,
  generate_lease: bool(false, 'Issue a lease with each certificate (revoking it revokes the certificate)'),
  no_store: bool(false, 'Do not store issued certificates (they cannot be listed or revoked)'),
  require_cn: bool(true, 'A common name is required'),
  cn_validations: list('How the CN is checked: "email", "hostname", "disabled"', ['email', 'hostname']),
  policy_identifiers: list('Certificate policy OIDs'),
  basic_constraints_valid_for_non_ca: bool(false, 'Mark basic constraints valid on non-CA certificates'),
  not_before_duration: weakDuration({ default: 30, description: 'How far notBefore is backdated' }),
  not_after: weakString({ default: '', description: 'Fixed notAfter (RFC 3339), instead of a TTL' }),
  issuer_ref: weakString({ default: 'default', description: 'The issuer (only "default")' }),
  allow_token_displayname: bool(false, 'Deprecated: allow the token display name'),
});
export type PkiRoleBody = z.output<typeof pkiRoleBodySchema>;

const strings = z.array(z.string());

/** A role as Vault answers it: every field, durations in seconds. */
export const pkiRoleDataSchema = z.object({
  ttl: z.number(),
  max_ttl: z.number(),
  allow_localhost: z.boolean(),
  allowed_domains: strings,
  allowed_domains_template: z.boolean(),
  allow_bare_domains: z.boolean(),
  allow_subdomains: z.boolean(),
  allow_glob_domains: z.boolean(),
  allow_wildcard_certificates: z.boolean(),
  allow_any_name: z.boolean(),
  enforce_hostnames: z.boolean(),
  allow_ip_sans: z.boolean(),
  allowed_uri_sans: strings,
  allowed_uri_sans_template: z.boolean(),
  allowed_other_sans: strings,
  allowed_serial_numbers: strings,
  allowed_user_ids: strings,
  server_flag: z.boolean(),
  client_flag: z.boolean(),
  code_signing_flag: z.boolean(),
  email_protection_flag: z.boolean(),
  key_type: z.string(),
  key_bits: z.number(),
  signature_bits: z.number(),
  use_pss: z.boolean(),
  key_usage: strings,
  ext_key_usage: strings,
  ext_key_usage_oids: strings,
  use_csr_common_name: z.boolean(),
  use_csr_sans: z.boolean(),
  ou: strings,
  organization: strings,
  country: strings,
  locality: strings,
  province: strings,
  street_address: strings,
  postal_code: strings,
  generate_lease: z.boolean(),
  no_store: z.boolean(),
  require_cn: z.boolean(),
  cn_validations: strings,
  policy_identifiers: strings,
  basic_constraints_valid_for_non_ca: z.boolean(),
  not_before_duration: z.number(),
  not_after: z.string(),
  issuer_ref: z.string(),
  allow_token_displayname: z.boolean(),
});
export type PkiRoleData = z.output<typeof pkiRoleDataSchema>;
