import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';
import {
  buildCertificate,
  subjectDer,
  subjectName,
  type CertificateTemplate,
  type SubjectFields,
} from './certificate-builder';
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

describe('subjectDer', () => {
  const fields = (over: Partial<SubjectFields>): SubjectFields => ({
    commonName: '',
    serialNumber: '',
    country: [],
    province: [],
    locality: [],
    streetAddress: [],
    postalCode: [],
    organization: [],
    ou: [],
    userIds: [],
    ...over,
  });
  it.each<[string, Partial<SubjectFields>]>([
    ['empty', {}],
    ['a plain CN', { commonName: 'host.example.com' }],
    ['a wildcard CN (UTF8String)', { commonName: '*.example.com' }],
    ['non-ASCII', { commonName: 'Zürich', organization: ['Ünïcode'] }],
    [
      'every field, several values',
      {
        commonName: 'cn',
        serialNumber: 'sn-1',
        country: ['CH', 'DE'],
        province: ['ZH'],
        locality: ['Zürich'],
        streetAddress: ['Bahnhofstr. 1'],
        postalCode: ['8001'],
        organization: ['Coffer', ''],
        ou: ['a', 'b & c'],
        userIds: ['uid-1'],
      },
    ],
    ['quoted and escaped values (the library unescapes them)', { commonName: '"quoted"', ou: ['a\\,b'] }],
    ['a hex value', { commonName: '#0c0161' }],
    ['a long value', { commonName: 'x'.repeat(300) }],
  ])('writes the bytes of subjectName: %s', (_name, over) => {
    const s = fields(over);
    expect(subjectDer(s).toString('hex')).toBe(Buffer.from(subjectName(s).toArrayBuffer()).toString('hex'));
  });
});

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
