import { createHash } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { sequence, spkiKeyBits, tlv } from './der';
import { generalNamesDer, hasSans, nameConstraintsDer, type SanSet } from './general-names';
import { asCryptoKey, nodeSigningCrypto, type NodeSigningKey } from './node-signer';
import { extensionsDer, keyIdOf, oid, signatureAlgorithmDer, signDer, tbsDer } from './tbs-writer';

/** The subject of a certificate (Vault's pkix.Name fields). */
export interface SubjectFields {
  commonName: string;
  serialNumber: string;
  country: string[];
  province: string[];
  locality: string[];
  streetAddress: string[];
  postalCode: string[];
  organization: string[];
  ou: string[];
  userIds: string[];
}

export interface CaUrls {
  issuing_certificates: string[];
  crl_distribution_points: string[];
  ocsp_servers: string[];
}

/** Everything a certificate says; the builder turns it into extensions and signs it. */
export interface CertificateTemplate {
  serialHex: string;
  /** the subject, or its DER as a CSR carries it (sign-verbatim) */
  subject: x509.Name | Buffer;
  /** the issuer's subject; undefined for a self-signed certificate */
  issuer?: x509.Name;
  /** the issuer's subject key id (hex); undefined for a self-signed certificate */
  authorityKeyId?: string;
  notBefore: Date;
  notAfter: Date;
  /** DER SubjectPublicKeyInfo of the certified key */
  publicKey: Buffer;
  sans: SanSet;
  isCa: boolean;
  /** -1: no limit */
  maxPathLength: number;
  basicConstraintsValidForNonCa: boolean;
  keyUsage: number;
  extKeyUsage: string[];
  policyOids: string[];
  permittedDnsDomains: string[];
  urls: CaUrls;
}

const OID_SAN = '2.5.29.17';
const OID_NAME_CONSTRAINTS = '2.5.29.30';

/** The subject's attributes in the order Go's pkix.Name writes them, one per RDN: [OID, values]. */
const subjectAttributes = (s: SubjectFields): [string, string[]][] => [
  ['2.5.4.6', s.country],
  ['2.5.4.8', s.province],
  ['2.5.4.7', s.locality],
  ['2.5.4.9', s.streetAddress],
  ['2.5.4.17', s.postalCode],
  ['2.5.4.10', s.organization],
  ['2.5.4.11', s.ou],
  ['2.5.4.3', [s.commonName]],
  ['2.5.4.5', [s.serialNumber]],
  ['0.9.2342.19200300.100.1.1', s.userIds],
];

/** Subject in the order Go's pkix.Name writes it (C, ST, L, street, postal code, O, OU, CN, serial). */
export function subjectName(s: SubjectFields): x509.Name {
  const rdns: x509.JsonName = [];
  for (const [type, values] of subjectAttributes(s))
    for (const value of values) if (value !== '') rdns.push({ [type]: [value] });
  return new x509.Name(rdns);
}

/** @peculiar/x509's choice of PrintableString (x509 Name.isPrintableString). */
const PRINTABLE = /^[A-Za-z0-9 '()+,\-./:=?]*$/;
/** Values @peculiar/x509 reads as escaped or quoted text, or hex (`#...`): left to it. */
const ESCAPED = /^#|["\\]/;

/**
 * The subject's DER, the bytes `subjectName(s)` serialises to, written directly: building the
 * Name object and serialising it through @peculiar/asn1-schema cost more per signed certificate
 * than the certificate's own signature (CSR sign profile). Values that library would unescape
 * take its path.
 */
export function subjectDer(s: SubjectFields): Buffer {
  const rdns: Buffer[] = [];
  for (const [type, values] of subjectAttributes(s))
    for (const value of values) {
      if (value === '') continue;
      if (ESCAPED.test(value)) return Buffer.from(subjectName(s).toArrayBuffer());
      const text = tlv(PRINTABLE.test(value) ? 0x13 : 0x0c, Buffer.from(value, 'utf8'));
      rdns.push(tlv(0x31, sequence(oid(type), text)));
    }
  return sequence(...rdns);
}

/** RFC 5280 method 1: SHA-1 of the subjectPublicKey bits. */
export const subjectKeyId = (spki: Buffer): string =>
  createHash('sha1').update(spkiKeyBits(spki)).digest('hex');

function extensionsOf(t: CertificateTemplate, ski: string): x509.Extension[] {
  const out: x509.Extension[] = [];
  if (t.isCa)
    out.push(
      new x509.BasicConstraintsExtension(true, t.maxPathLength >= 0 ? t.maxPathLength : undefined, true),
    );
  else if (t.basicConstraintsValidForNonCa)
    out.push(new x509.BasicConstraintsExtension(false, undefined, true));
  if (t.keyUsage !== 0) out.push(new x509.KeyUsagesExtension(t.keyUsage, true));
  if (t.extKeyUsage.length > 0) out.push(new x509.ExtendedKeyUsageExtension(t.extKeyUsage, false));
  out.push(new x509.SubjectKeyIdentifierExtension(ski));
  out.push(new x509.AuthorityKeyIdentifierExtension(t.authorityKeyId ?? ski));
  if (t.urls.issuing_certificates.length > 0 || t.urls.ocsp_servers.length > 0) {
    const params: x509.AuthorityInfoAccessParams = {};
    if (t.urls.ocsp_servers.length > 0) params.ocsp = t.urls.ocsp_servers;
    if (t.urls.issuing_certificates.length > 0) params.caIssuers = t.urls.issuing_certificates;
    out.push(new x509.AuthorityInfoAccessExtension(params));
  }
  if (t.urls.crl_distribution_points.length > 0)
    out.push(new x509.CRLDistributionPointsExtension(t.urls.crl_distribution_points));
  if (hasSans(t.sans)) {
    // critical when the subject is empty (RFC 5280 4.2.1.6)
    const emptySubject = nameDer(t.subject).length <= 2;
    out.push(new x509.Extension(OID_SAN, emptySubject, generalNamesDer(t.sans)));
  }
  if (t.policyOids.length > 0) out.push(new x509.CertificatePolicyExtension(t.policyOids));
  if (t.isCa && t.permittedDnsDomains.length > 0)
    out.push(new x509.Extension(OID_NAME_CONSTRAINTS, true, nameConstraintsDer(t.permittedDnsDomains)));
  return out;
}

/** DER of a name; an issuer's is asked for on every issue, so it is kept per Name object. */
const nameDers = new WeakMap<x509.Name, Buffer>();
function nameDer(name: x509.Name | Buffer): Buffer {
  if (Buffer.isBuffer(name)) return name;
  let der = nameDers.get(name);
  if (!der) {
    der = Buffer.from(name.toArrayBuffer());
    nameDers.set(name, der);
  }
  return der;
}

/**
 * Builds and signs a certificate (DER). The usual algorithms take the direct DER path
 * (tbs-writer.ts); RSA-PSS, whose parameters that path does not write, goes through
 * @peculiar/x509's generator.
 */
export async function buildCertificate(t: CertificateTemplate, signer: NodeSigningKey): Promise<Buffer> {
  const algorithm = signatureAlgorithmDer(signer);
  if (!algorithm) return Buffer.from((await buildWithGenerator(t, signer)).rawData);
  const keyId = keyIdOf(t.publicKey);
  const subject = nameDer(t.subject);
  const tbs = tbsDer({
    serialHex: t.serialHex,
    algorithm,
    issuer: t.issuer ? nameDer(t.issuer) : subject,
    notBefore: t.notBefore,
    notAfter: t.notAfter,
    subject,
    spki: t.publicKey,
    extensions: extensionsDer({
      ...t,
      subjectKeyId: keyId,
      authorityKeyId: t.authorityKeyId ? Buffer.from(t.authorityKeyId, 'hex') : keyId,
      issuingUrls: t.urls.issuing_certificates,
      ocspServers: t.urls.ocsp_servers,
      crlDistributionPoints: t.urls.crl_distribution_points,
      // critical when the subject is empty (RFC 5280 4.2.1.6)
      sansCritical: subject.length <= 2,
    }),
  });
  return signDer(tbs, algorithm, signer);
}

function buildWithGenerator(t: CertificateTemplate, signer: NodeSigningKey): Promise<x509.X509Certificate> {
  const ski = subjectKeyId(t.publicKey);
  return x509.X509CertificateGenerator.create(
    {
      serialNumber: t.serialHex,
      subject: Buffer.isBuffer(t.subject) ? new x509.Name(t.subject) : t.subject,
      issuer: t.issuer ?? (Buffer.isBuffer(t.subject) ? new x509.Name(t.subject) : t.subject),
      notBefore: t.notBefore,
      notAfter: t.notAfter,
      publicKey: t.publicKey,
      signingKey: asCryptoKey(signer),
      signingAlgorithm: signer.algorithm,
      extensions: extensionsOf(t, ski),
    },
    nodeSigningCrypto,
  );
}
