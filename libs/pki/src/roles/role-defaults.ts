import { pkiRoleBodySchema, type PkiRoleData } from '@coffer/contracts/pki';

/** A role with every field at Vault's default (what an empty role write stores). */
export const defaultRole = (): PkiRoleData => {
  const parsed = pkiRoleBodySchema.parse({});
  return { ...parsed, key_bits: parsed.key_type === 'rsa' ? 2048 : parsed.key_bits };
};

/** The subject fields a CA request carries (generate, sign-intermediate). */
interface CaSubjectRequest {
  ttl: number;
  ou: string[];
  organization: string[];
  country: string[];
  locality: string[];
  province: string[];
  street_address: string[];
  postal_code: string[];
  not_before_duration: number;
}

/**
 * The role Vault makes up for CA operations (root/generate, intermediate/generate,
 * root/sign-intermediate): any name, no host-name rules, every SAN kind, the request's subject.
 */
export function caRole(body: CaSubjectRequest, keyType: string, keyBits: number): PkiRoleData {
  return {
    ...defaultRole(),
    ttl: body.ttl,
    allow_any_name: true,
    enforce_hostnames: false,
    allow_ip_sans: true,
    allowed_uri_sans: ['*'],
    allowed_other_sans: ['*'],
    allow_wildcard_certificates: true,
    key_type: keyType,
    key_bits: keyBits,
    key_usage: ['CertSign', 'CRLSign'],
    server_flag: false,
    client_flag: false,
    use_csr_common_name: false,
    use_csr_sans: false,
    ou: body.ou,
    organization: body.organization,
    country: body.country,
    locality: body.locality,
    province: body.province,
    street_address: body.street_address,
    postal_code: body.postal_code,
    not_before_duration: body.not_before_duration,
    cn_validations: ['disabled'],
  };
}

/** sign-verbatim's role: the CSR as it is, with the given role's TTLs and storage options. */
export function verbatimRole(
  base: PkiRoleData | undefined,
  body: { key_usage: string[]; ext_key_usage: string[]; ext_key_usage_oids: string[] },
): PkiRoleData {
  const role = base ?? defaultRole();
  return {
    ...defaultRole(),
    ttl: role.ttl,
    max_ttl: role.max_ttl,
    generate_lease: role.generate_lease,
    no_store: role.no_store,
    not_before_duration: role.not_before_duration,
    allow_any_name: true,
    enforce_hostnames: false,
    allow_ip_sans: true,
    allowed_uri_sans: ['*'],
    allowed_other_sans: ['*'],
    allowed_serial_numbers: [],
    key_type: 'any',
    key_bits: 0,
    use_csr_common_name: true,
    use_csr_sans: true,
    require_cn: false,
    key_usage: body.key_usage,
    ext_key_usage: body.ext_key_usage,
    ext_key_usage_oids: body.ext_key_usage_oids,
    server_flag: false,
    client_flag: false,
    cn_validations: ['disabled'],
  };
}
