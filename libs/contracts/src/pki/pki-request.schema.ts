import { z } from 'zod';
import { weakBool, weakDuration, weakInt, weakString, weakStringList } from '../fields/weak-fields';
import { subjectListFields } from './pki-role.schema';

/**
 * Request bodies of the PKI engine (Vault's builtin/logical/pki/fields.go, old single-issuer API).
 * Checks that need the role or the CA (names, TTLs, key sizes) live in the service.
 */
const str = (description: string, def = '') => weakString({ default: def, description });
const list = (description: string) => weakStringList({ default: [], description });
const bool = (description: string, def = false) => weakBool({ default: def, description });

/** What every issue / sign / generate request may name about the certificate. */
const certificateFields = {
  common_name: str('The requested common name'),
  alt_names: list('DNS names and email addresses to add as SANs (comma list)'),
  ip_sans: list('IP SANs (comma list)'),
  uri_sans: list('URI SANs (comma list)'),
  other_sans: list('Other SANs: "<oid>;UTF8:<value>" (comma list or JSON list)'),
  ttl: weakDuration({
    default: 0,
    description: 'Requested TTL; capped by the role max_ttl and the CA expiry',
  }),
  not_after: str('Fixed notAfter (RFC 3339) instead of a TTL'),
  format: str('"pem" (default), "der" (base64) or "pem_bundle"', 'pem'),
  private_key_format: str('"der" (default) or "pkcs8"', 'der'),
  exclude_cn_from_sans: bool('Do not add the common name to the SANs'),
  serial_number: str('The subject serialNumber attribute (not the certificate serial)'),
  user_ids: list('User IDs (UID) of the subject'),
};

/** Subject fields and key of a CA made here (root / intermediate generation). */
const caFields = {
  ...certificateFields,
  key_type: str('"rsa" (default), "ec" or "ed25519"', 'rsa'),
  key_bits: weakInt({ default: 0, description: 'Key size; 0 is the type default' }),
  signature_bits: weakInt({ default: 0, description: 'Hash size of the signature: 256, 384 or 512' }),
  use_pss: bool('Sign with RSA-PSS'),
  max_path_length: weakInt({ default: -1, description: 'Maximum path length; -1 is unlimited' }),
  permitted_dns_domains: list('Name-constraint DNS domains'),
  ...subjectListFields,
  not_before_duration: weakDuration({ default: 30, description: 'How far notBefore is backdated' }),
};

export const pkiGenerateBodySchema = z.object({
  ...caFields,
  add_basic_constraints: bool('Add basic constraints (CA:true) to an intermediate CSR'),
});
export type PkiGenerateBody = z.output<typeof pkiGenerateBodySchema>;

export const pkiIssueBodySchema = z.object(certificateFields);
export type PkiIssueBody = z.output<typeof pkiIssueBodySchema>;

export const pkiSignBodySchema = z.object({
  ...certificateFields,
  csr: str('The PEM certificate signing request'),
});
export type PkiSignBody = z.output<typeof pkiSignBodySchema>;

export const pkiSignVerbatimBodySchema = z.object({
  ...certificateFields,
  csr: str('The PEM certificate signing request'),
  key_usage: weakStringList({
    default: ['DigitalSignature', 'KeyAgreement', 'KeyEncipherment'],
    description: 'Key usages',
  }),
  ext_key_usage: list('Extended key usages'),
  ext_key_usage_oids: list('Extended key usage OIDs'),
});
export type PkiSignVerbatimBody = z.output<typeof pkiSignVerbatimBodySchema>;

export const pkiSignIntermediateBodySchema = z.object({
  ...caFields,
  csr: str('The PEM certificate signing request of the intermediate'),
  use_csr_values: bool("Use the CSR's subject and SANs instead of the request's"),
});
export type PkiSignIntermediateBody = z.output<typeof pkiSignIntermediateBodySchema>;

export const pkiCertificateBodySchema = z.object({ certificate: str('PEM certificate(s)') });
export const pkiPemBundleBodySchema = z.object({ pem_bundle: str('PEM private key and certificate(s)') });
export const pkiRevokeBodySchema = z.object({
  serial_number: str('Serial of the certificate, colon- or hyphen-separated hex'),
});

export const pkiCrlConfigBodySchema = z.object({
  expiry: weakString({ description: 'How long a CRL is valid, e.g. "72h"' }),
  disable: weakBool({ description: 'Disable the CRL (an empty one is served)' }),
  auto_rebuild: weakBool({ description: 'Rebuild the CRL before it expires (required by unified_crl)' }),
  auto_rebuild_grace_period: weakString({
    description: 'How long before expiry an auto-rebuilt CRL is rebuilt, e.g. "12h"',
  }),
  cross_cluster_revocation: weakBool({
    description: 'A serial unknown here is queued for the cluster that issued it (requires auto_rebuild)',
  }),
  unified_crl: weakBool({
    description: 'Build a CRL of every cluster’s revocations (requires auto_rebuild)',
  }),
  unified_crl_on_existing_paths: weakBool({
    description: 'Serve the unified CRL on crl and crl/pem too (requires unified_crl)',
  }),
});

/**
 * A revocation recorded for the unified CRL, or a cross-cluster revocation request: internal
 * writes a performance secondary forwards to its primary (no route: clients never send them).
 */
export const pkiUnifiedRevocationBodySchema = z.object({
  serial: z.string().min(1),
  revoked_at_ms: z.number().int(),
  issuer_key_id: z.string(),
});
export const pkiCrossRevocationBodySchema = z.object({ serial: z.string().min(1) });

export const pkiUrlsBodySchema = z.object({
  issuing_certificates: weakStringList({ description: 'URLs of the issuing certificate (AIA)' }),
  crl_distribution_points: weakStringList({ description: 'CRL distribution point URLs' }),
  ocsp_servers: weakStringList({ description: 'OCSP server URLs' }),
});

export const pkiTidyBodySchema = z.object({
  tidy_cert_store: bool('Remove expired certificates from the store'),
  tidy_revocation_list: bool('Old name of tidy_revoked_certs'),
  tidy_revoked_certs: bool('Remove expired revoked certificates (and their CRL entries)'),
  safety_buffer: weakDuration({ default: 259_200, description: 'Keep certificates expired less than this' }),
});
