import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCsr } from './csr';

const dir = mkdtempSync(join(tmpdir(), 'pki-csr-'));
function opensslCsr(key: string[], subject: string, ext: string[] = []): string {
  const out = join(dir, 'r.csr');
  execFileSync(
    'openssl',
    ['req', '-new', ...key, '-nodes', '-keyout', join(dir, 'r.key'), '-subj', subject, ...ext, '-out', out],
    {
      stdio: 'pipe',
    },
  );
  return readFileSync(out, 'utf8');
}

describe('parseCsr (openssl req CSRs)', () => {
  it('reads the subject, SANs, CA flag and key of RSA, EC and ed25519 CSRs', () => {
    const rsa = parseCsr(
      opensslCsr(['-newkey', 'rsa:2048'], '/CN=api.example.com/serialNumber=42', [
        '-addext',
        'subjectAltName=DNS:a.example.com,IP:10.0.0.1,URI:spiffe://x/y,email:me@example.com,otherName:1.3.6.1.4.1.311.20.2.3;UTF8:upn@x',
      ]),
    );
    expect(rsa).toMatchObject({
      commonName: 'api.example.com',
      subjectSerialNumber: '42',
      requestsCa: false,
    });
    expect(rsa.sans).toEqual({
      dns: ['a.example.com'],
      ip: ['10.0.0.1'],
      uri: ['spiffe://x/y'],
      email: ['me@example.com'],
      other: [{ oid: '1.3.6.1.4.1.311.20.2.3', value: 'upn@x' }],
    });
    const ec = parseCsr(
      opensslCsr(['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-384'], '/CN=ca', [
        '-addext',
        'basicConstraints=critical,CA:TRUE',
      ]),
    );
    expect(ec.requestsCa).toBe(true);
    expect(ec.publicKey.asymmetricKeyType).toBe('ec');
    expect(parseCsr(opensslCsr(['-newkey', 'ed25519'], '/CN=ed')).commonName).toBe('ed');
  });

  it('refuses what is not a CSR or not signed by its key', () => {
    const good = opensslCsr(['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'], '/CN=x');
    const der = Buffer.from(good.replace(/-----[A-Z ]+-----|\s/g, ''), 'base64');
    der[der.length - 2] = (der[der.length - 2] ?? 0) ^ 0x01;
    const bad = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----`;
    expect(() => parseCsr(bad)).toThrow(/request signature invalid/);
    expect(() => parseCsr('')).toThrow('"csr" is empty');
    expect(() => parseCsr('junk')).toThrow('csr contains no data');
    expect(() =>
      parseCsr('-----BEGIN CERTIFICATE REQUEST-----\nMAA=\n-----END CERTIFICATE REQUEST-----'),
    ).toThrow(/could not be parsed/);
  });
});
