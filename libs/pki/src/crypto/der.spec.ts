import { integerDer, oidDer, sequence, signedParts, tlv, utf8String } from './der';

describe('der', () => {
  it('encodes OIDs, including large arcs', () => {
    expect(oidDer('1.2.840.113549')?.toString('hex')).toBe('06062a864886f70d');
    expect(oidDer('2.5.29.17')?.toString('hex')).toBe('0603551d11');
    expect(oidDer('1.2.x')).toBeUndefined();
    expect(oidDer('1.50.1')).toBeUndefined();
  });

  it('uses long lengths past 127 bytes', () => {
    expect(tlv(0x04, Buffer.alloc(200)).subarray(0, 3).toString('hex')).toBe('0481c8');
    expect(utf8String('é').toString('hex')).toBe('0c02c3a9');
  });

  it('keeps INTEGERs positive', () => {
    expect(integerDer(128n).toString('hex')).toBe('02020080');
    expect(integerDer(1n).toString('hex')).toBe('020101');
  });

  it('splits a signed structure', () => {
    const der = sequence(
      sequence(Buffer.from([0x02, 0x01, 0x05])),
      sequence(),
      tlv(0x03, Buffer.from([0, 9, 9])),
    );
    const parts = signedParts(der);
    expect(parts.tbs.toString('hex')).toBe('3003020105');
    expect(parts.signature.toString('hex')).toBe('0909');
    expect(() => signedParts(Buffer.from([0x30, 0x05]))).toThrow();
  });
});
