import sshpk from 'sshpk';
import { generateKeyPair, parsePrivateKey, parsePublicKey } from '../ca/ca-keys';
import { randomSerial, signCertificate } from './certificate';

const subject = parsePublicKey(generateKeyPair('ssh-ed25519', 0).publicKey);

describe('OpenSSH certificates', () => {
  it.each([
    ['ssh-ed25519', 0, undefined],
    ['ecdsa-sha2-nistp256', 0, undefined],
    ['ec', 384, undefined],
    ['ecdsa-sha2-nistp521', 0, undefined],
    ['rsa', 2048, 'rsa-sha2-256'],
    ['rsa', 2048, 'rsa-sha2-512'],
  ])('signs with a %s CA (%d bits, %s) verifiably', (type, bits, algorithm) => {
    const ca = parsePrivateKey(generateKeyPair(type, bits).privateKey);
    const text = signCertificate(
      {
        publicBlob: subject.toBuffer('rfc4253'),
        keyType: 'ssh-ed25519',
        serial: 0x1234n,
        certType: 'user',
        keyId: 'key-1',
        principals: ['alice', 'bob'],
        validAfter: 1_700_000_000,
        validBefore: 1_700_003_600,
        criticalOptions: { 'force-command': 'id' },
        extensions: { 'permit-pty': '' },
      },
      ca,
      algorithm,
    );
    expect(text.startsWith('ssh-ed25519-cert-v01@openssh.com ')).toBe(true);
    const cert = sshpk.parseCertificate(text, 'openssh');
    expect(cert.subjects.map((s) => s.toString())).toEqual(['UID=alice', 'UID=bob']);
    expect(cert.isSignedByKey(sshpk.parseKey(ca.publicText, 'ssh'))).toBe(true);
    expect(cert.subjectKey.fingerprint('sha256').toString()).toBe(subject.fingerprint('sha256').toString());
  });

  it('draws random non-zero serials', () => {
    const serials = new Set(Array.from({ length: 100 }, randomSerial));
    expect(serials.size).toBe(100);
    expect(serials.has(0n)).toBe(false);
  });
});
