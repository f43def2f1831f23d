import { unifiedCrlEntries } from './unified-crl';

describe('unifiedCrlEntries', () => {
  it("lists own revocations and the CA's unified entries once per serial, by serial", () => {
    const entries = new Map([
      ['0b', { serial: '0b', revokedAtMs: 20, issuerKeyId: 'ca1' }],
      ['0a', { serial: '0a', revokedAtMs: 99, issuerKeyId: 'ca1' }],
      ['0c', { serial: '0c', revokedAtMs: 30, issuerKeyId: 'old-ca' }],
    ]);
    expect(unifiedCrlEntries([{ serial: '0a', revokedMs: 10 }], entries, 'ca1')).toEqual([
      { serial: '0a', revokedMs: 10 },
      { serial: '0b', revokedMs: 20 },
    ]);
  });

  it('is the own list alone when no cluster recorded anything', () => {
    expect(unifiedCrlEntries([{ serial: '01', revokedMs: 1 }], new Map(), '')).toEqual([
      { serial: '01', revokedMs: 1 },
    ]);
  });
});
