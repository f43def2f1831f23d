import { z } from 'zod';
import { engineContract, type OperationDef, type RouteDef, type RouteTable } from '../routes';
import {
  pkiCertificateBodySchema,
  pkiCrlConfigBodySchema,
  pkiCrossRevocationBodySchema,
  pkiGenerateBodySchema,
  pkiIssueBodySchema,
  pkiPemBundleBodySchema,
  pkiRevokeBodySchema,
  pkiSignBodySchema,
  pkiSignIntermediateBodySchema,
  pkiSignVerbatimBodySchema,
  pkiTidyBodySchema,
  pkiUnifiedRevocationBodySchema,
  pkiUrlsBodySchema,
} from './pki-request.schema';
import { pkiRoleBodySchema, pkiRoleDataSchema } from './pki-role.schema';

const nameParams = z.object({ name: z.string() });
const typeParams = z.object({ type: z.string() });
const serialParams = z.object({ serial: z.string() });
const roleParams = z.object({ role: z.string().default('') }).prefault({});

/** A certificate as issue and sign answer it (private key only from issue / exported). */
export const pkiCertificateDataSchema = z.object({
  certificate: z.string(),
  issuing_ca: z.string(),
  ca_chain: z.array(z.string()).optional(),
  serial_number: z.string(),
  expiration: z.number().int(),
  private_key: z.string().optional(),
  private_key_type: z.string().optional(),
});
export type PkiCertificateData = z.input<typeof pkiCertificateDataSchema>;

const csrData = z.object({
  csr: z.string(),
  private_key: z.string().optional(),
  private_key_type: z.string().optional(),
});
const certReadData = z.object({
  certificate: z.string(),
  revocation_time: z.number().int(),
  revocation_time_rfc3339: z.string().optional(),
  ca_chain: z.array(z.string()).optional(),
});
/** revoked here, or (cross-cluster revocation) queued for the issuing cluster: `state: "pending"` */
const revokeData = z.object({
  revocation_time: z.number().int().optional(),
  revocation_time_rfc3339: z.string().optional(),
  state: z.literal('pending').optional(),
});
const keysData = z.object({ keys: z.array(z.string()) });
const crlConfigData = z.object({
  expiry: z.string(),
  disable: z.boolean(),
  auto_rebuild: z.boolean(),
  auto_rebuild_grace_period: z.string(),
  cross_cluster_revocation: z.boolean(),
  unified_crl: z.boolean(),
  unified_crl_on_existing_paths: z.boolean(),
});
const urlsData = z.object({
  issuing_certificates: z.array(z.string()),
  crl_distribution_points: z.array(z.string()),
  ocsp_servers: z.array(z.string()),
});
/** Bare DER (base64 on the wire, bytes over HTTP) or PEM: not an envelope. */
const rawText = z.string();

export const pki = {
  rootGenerate: engineContract('pki.root.generate', {
    params: typeParams,
    body: pkiGenerateBodySchema,
    data: pkiCertificateDataSchema,
  }),
  rootDelete: engineContract('pki.root.delete'),
  rootSignIntermediate: engineContract('pki.root.sign-intermediate', {
    body: pkiSignIntermediateBodySchema,
    data: pkiCertificateDataSchema,
  }),
  rootSignSelfIssued: engineContract('pki.root.sign-self-issued', {
    body: pkiCertificateBodySchema,
    data: z.object({ certificate: z.string(), issuing_ca: z.string() }),
  }),
  intermediateGenerate: engineContract('pki.intermediate.generate', {
    params: typeParams,
    body: pkiGenerateBodySchema,
    data: csrData,
  }),
  intermediateSetSigned: engineContract('pki.intermediate.set-signed', { body: pkiCertificateBodySchema }),
  configCa: engineContract('pki.config.ca', { body: pkiPemBundleBodySchema }),
  issue: engineContract('pki.issue', {
    params: nameParams,
    body: pkiIssueBodySchema,
    data: pkiCertificateDataSchema,
  }),
  sign: engineContract('pki.sign', {
    params: nameParams,
    body: pkiSignBodySchema,
    data: pkiCertificateDataSchema,
  }),
  signVerbatim: engineContract('pki.sign-verbatim', {
    params: roleParams,
    body: pkiSignVerbatimBodySchema,
    data: pkiCertificateDataSchema,
  }),
  revoke: engineContract('pki.revoke', { body: pkiRevokeBodySchema, data: revokeData }),
  roleWrite: engineContract('pki.role.write', { params: nameParams, body: pkiRoleBodySchema }),
  roleRead: engineContract('pki.role.read', { params: nameParams, data: pkiRoleDataSchema }),
  roleDelete: engineContract('pki.role.delete', { params: nameParams }),
  roleList: engineContract('pki.role.list', { data: keysData }),
  certList: engineContract('pki.cert.list', { data: keysData }),
  certRead: engineContract('pki.cert.read', { params: serialParams, data: certReadData }),
  caDer: engineContract('pki.ca.der', { raw: rawText }),
  caPem: engineContract('pki.ca.pem', { raw: rawText }),
  caChain: engineContract('pki.ca.chain', { raw: rawText }),
  crlDer: engineContract('pki.crl.der', { raw: rawText }),
  crlPem: engineContract('pki.crl.pem', { raw: rawText }),
  unifiedCrlDer: engineContract('pki.unified-crl.der', { raw: rawText }),
  unifiedCrlPem: engineContract('pki.unified-crl.pem', { raw: rawText }),
  /** internal, forwarded by a performance secondary: a revocation for the unified CRL */
  unifiedRevocationRecord: engineContract('pki.unified-revocation.record', {
    body: pkiUnifiedRevocationBodySchema,
  }),
  /** internal, forwarded by a performance secondary: revoke a serial another cluster issued */
  crossRevocationRequest: engineContract('pki.cross-revocation.request', {
    body: pkiCrossRevocationBodySchema,
  }),
  crlRotate: engineContract('pki.crl.rotate', { data: z.object({ success: z.boolean() }) }),
  crlConfigRead: engineContract('pki.config.crl.read', { data: crlConfigData }),
  crlConfigWrite: engineContract('pki.config.crl.write', { body: pkiCrlConfigBodySchema }),
  urlsRead: engineContract('pki.config.urls.read', { data: urlsData }),
  urlsWrite: engineContract('pki.config.urls.write', { body: pkiUrlsBodySchema }),
  tidy: engineContract('pki.tidy', { body: pkiTidyBodySchema }),
} as const;

const op = (contract: OperationDef['contract'], summary: string): OperationDef => ({ contract, summary });
const write = (contract: OperationDef['contract'], summary: string) => ({
  create: op(contract, summary),
  update: op(contract, summary),
});

const routes: RouteDef[] = [
  {
    pattern: 'root/generate/:type',
    synopsis: 'Generate a self-signed root CA ("internal" keeps the key, "exported" returns it).',
    replicated: true,
    operations: write(pki.rootGenerate, 'Generates a root CA; an existing CA is not overwritten.'),
  },
  {
    pattern: 'root',
    synopsis: 'Delete the CA (certificate and key).',
    replicated: true,
    sudo: true,
    operations: { delete: op(pki.rootDelete, 'Deletes the CA certificate and key.') },
  },
  {
    pattern: 'root/sign-intermediate',
    synopsis: 'Sign an intermediate CA CSR with the root.',
    operations: write(pki.rootSignIntermediate, 'Issues a CA certificate for the CSR.'),
  },
  {
    pattern: 'root/sign-self-issued',
    synopsis: 'Re-sign a self-issued CA certificate with this CA.',
    sudo: true,
    operations: write(pki.rootSignSelfIssued, 'Signs a self-issued certificate.'),
  },
  {
    pattern: 'intermediate/generate/:type',
    synopsis: 'Generate an intermediate CA key and CSR.',
    replicated: true,
    operations: write(pki.intermediateGenerate, 'Generates a key and a CSR to be signed by a parent CA.'),
  },
  {
    pattern: 'intermediate/set-signed',
    synopsis: 'Install the signed intermediate certificate.',
    replicated: true,
    operations: write(pki.intermediateSetSigned, 'Sets the signed certificate of the pending key.'),
  },
  {
    pattern: 'config/ca',
    synopsis: 'Set the CA from a PEM bundle (key and certificate).',
    replicated: true,
    operations: write(pki.configCa, 'Sets the CA key and certificate, replacing any.'),
  },
  {
    pattern: 'issue/:name',
    synopsis: 'Issue a certificate and key under a role.',
    operations: write(pki.issue, 'Issues a certificate and private key (the key is not stored).'),
  },
  {
    pattern: 'sign/:name',
    synopsis: 'Sign a CSR under a role.',
    operations: write(pki.sign, 'Signs the CSR.'),
  },
  {
    pattern: 'sign-verbatim',
    synopsis: 'Sign a CSR as it is.',
    operations: write(pki.signVerbatim, 'Signs the CSR with its own subject and SANs.'),
  },
  {
    pattern: 'sign-verbatim/:role',
    synopsis: 'Sign a CSR as it is, with a role’s TTLs and storage options.',
    operations: write(pki.signVerbatim, 'Signs the CSR with its own subject and SANs.'),
  },
  {
    pattern: 'revoke',
    synopsis: 'Revoke a certificate by serial.',
    operations: write(pki.revoke, 'Revokes the certificate and rebuilds the CRL.'),
  },
  {
    pattern: 'roles/:name',
    synopsis: 'Manage the roles certificates are issued under.',
    replicated: true,
    operations: {
      ...write(pki.roleWrite, 'Creates or replaces the role.'),
      read: op(pki.roleRead, 'Reads the role.'),
      delete: op(pki.roleDelete, 'Deletes the role (issued certificates stay valid).'),
    },
  },
  { pattern: 'roles', synopsis: 'List roles.', operations: { list: op(pki.roleList, 'Lists the roles.') } },
  {
    pattern: 'certs',
    synopsis: 'List stored certificates.',
    operations: { list: op(pki.certList, 'Lists the serials of stored certificates.') },
  },
  {
    pattern: 'cert/:serial',
    synopsis: 'Read a certificate (or the literals ca, crl, ca_chain).',
    unauthenticated: true,
    operations: { read: op(pki.certRead, 'Reads the certificate as PEM.') },
  },
  {
    pattern: 'ca',
    synopsis: 'The CA certificate, DER.',
    unauthenticated: true,
    operations: { read: op(pki.caDer, 'Returns the CA certificate as DER.') },
  },
  {
    pattern: 'ca/pem',
    synopsis: 'The CA certificate, PEM.',
    unauthenticated: true,
    operations: { read: op(pki.caPem, 'Returns the CA certificate as PEM.') },
  },
  {
    pattern: 'ca_chain',
    synopsis: 'The CA chain, PEM.',
    unauthenticated: true,
    operations: { read: op(pki.caChain, 'Returns the CA chain as PEM.') },
  },
  {
    pattern: 'crl',
    synopsis: 'The CRL, DER.',
    unauthenticated: true,
    operations: { read: op(pki.crlDer, 'Returns the current CRL as DER.') },
  },
  {
    pattern: 'crl/pem',
    synopsis: 'The CRL, PEM.',
    unauthenticated: true,
    operations: { read: op(pki.crlPem, 'Returns the current CRL as PEM.') },
  },
  {
    pattern: 'unified-crl',
    synopsis: 'The unified CRL (every cluster’s revocations), DER.',
    unauthenticated: true,
    operations: { read: op(pki.unifiedCrlDer, 'Returns the unified CRL as DER.') },
  },
  {
    pattern: 'unified-crl/pem',
    synopsis: 'The unified CRL (every cluster’s revocations), PEM.',
    unauthenticated: true,
    operations: { read: op(pki.unifiedCrlPem, 'Returns the unified CRL as PEM.') },
  },
  {
    pattern: 'crl/rotate',
    synopsis: 'Rebuild the CRL.',
    operations: { read: op(pki.crlRotate, 'Rebuilds the CRL.') },
  },
  {
    pattern: 'config/crl',
    synopsis: 'CRL configuration.',
    replicated: true,
    operations: {
      read: op(pki.crlConfigRead, 'Reads the CRL configuration.'),
      ...write(pki.crlConfigWrite, 'Sets the CRL configuration.'),
    },
  },
  {
    pattern: 'config/urls',
    synopsis: 'URLs written into issued certificates.',
    replicated: true,
    operations: {
      read: op(pki.urlsRead, 'Reads the URLs.'),
      ...write(pki.urlsWrite, 'Sets the URLs.'),
    },
  },
  {
    pattern: 'tidy',
    synopsis: 'Remove expired certificates from the store and the CRL.',
    operations: write(pki.tidy, 'Tidies the certificate store and revocation list.'),
  },
];

export const pkiRoutes: RouteTable = {
  engine: 'pki',
  service: 'pki',
  help: [
    'The PKI secrets engine is an X.509 certificate authority.',
    '',
    'Generate or import a CA (root/generate, intermediate/*, config/ca), define roles, then',
    'issue certificates with keys (issue/:role) or sign CSRs (sign/:role, sign-verbatim).',
    'Revoked certificates are listed on the CRL (crl, crl/pem); with unified_crl in config/crl,',
    'unified-crl lists the revocations of every replication cluster.',
  ].join('\n'),
  routes,
};
