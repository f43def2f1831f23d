import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';
import { buildCertificate, subjectName, type CertificateTemplate } from './certificate-builder';
import { emptySans } from './general-names';
import { generateKey, spkiOf, type KeySpec } from './keys';
import { signingKeyOf } from './node-signer';
import { certificatePem, newSerialHex } from './pem';

const subject = (cn: string) =>
  subjectName({
    commonName: cn,
    serialNumber: '',
    country: [],
    province: [],
    locality: [],
    streetAddress: [],
    postalCode: [],
    organization: ['Coffer'],
    ou: [],
    userIds: [],
  });

function template(cn: string, spki: Buffer, isCa: boolean): CertificateTemplate {
  const now = Date.now();
  return {
    serialHex: newSerialHex(),
    subject: subject(cn),
    notBefore: new Date(now - 30_000),
    notAfter: new Date(now + 3_600_000),
    publicKey: spki,
    sans: {
      ...emptySans(),
      dns: [cn],
      ip: ['127.0.0.1', '::1'],
      other: [{ oid: '1.3.6.1.4.1.311.20.2.3', value: 'me@x' }],
    },
    isCa,
    maxPathLength: -1,
    basicConstraintsValidForNonCa: false,
    keyUsage: isCa ? 96 : 1,
    extKeyUsage: isCa ? [] : ['1.3.6.1.5.5.7.3.1'],
    policyOids: ['1.2.3.4'],
    permittedDnsDomains: [],
    urls: { issuing_certificates: [], crl_distribution_points: ['http://crl.example/crl'], ocsp_servers: [] },
  };
}

const specs: KeySpec[] = [
  { type: 'rsa', bits: 2048 },
  { type: 'ec', bits: 224 },
  { type: 'ec', bits: 256 },
  { type: 'ec', bits: 521 },
  { type: 'ed25519', bits: 0 },
];

describe('buildCertificate (checked by openssl)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pki-builder-'));

  it.each(specs)('signs a chain with %o keys that openssl verifies', async (spec) => {
    const caKey = await generateKey(spec);
    const root = new x509.X509Certificate(
      await buildCertificate(template('root.example', spkiOf(caKey), true), signingKeyOf(caKey)),
    );
    const leafKey = await generateKey({ type: 'ec', bits: 256 });
    const leafT = template('leaf.example', spkiOf(leafKey), false);
    const leaf = await buildCertificate(
      {
        ...leafT,
        issuer: root.subjectName,
        authorityKeyId: root.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId,
      },
      signingKeyOf(caKey),
    );
    const name = `${spec.type}${spec.bits}`;
    writeFileSync(join(dir, `${name}-root.pem`), certificatePem(Buffer.from(root.rawData)));
    writeFileSync(join(dir, `${name}-leaf.pem`), certificatePem(leaf));
    const out = execFileSync('openssl', [
      'verify',
      '-CAfile',
      join(dir, `${name}-root.pem`),
      join(dir, `${name}-leaf.pem`),
    ]);
    expect(out.toString()).toContain(': OK');
    const text = execFileSync('openssl', [
      'x509',
      '-noout',
      '-text',
      '-in',
      join(dir, `${name}-leaf.pem`),
    ]).toString();
    expect(text).toContain('DNS:leaf.example');
    expect(text).toContain('IP Address:127.0.0.1');
    expect(text).toContain('Policy: 1.2.3.4');
  });
});
