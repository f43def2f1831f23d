import { generateKeyPairSync } from 'node:crypto';
import { openActivation, sealActivation } from './sealed-activation';

const pair = () => {
  const p = generateKeyPairSync('x25519');
  return {
    publicKey: p.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    privateKey: p.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
};

const activation = {
  mode: 'dr' as const,
  cluster_id: 'c',
  primary_cluster_addr: '127.0.0.1:8201',
  secondary_id: 'b',
  psk: 'secret',
};

describe('activation sealed to a secondary public key', () => {
  it('opens with the matching private key only', () => {
    const mine = pair();
    const token = sealActivation(mine.publicKey, activation, 'http://a:8200');
    expect(token.startsWith('cra1.')).toBe(true);
    expect(token).not.toContain('secret');
    expect(openActivation(mine.privateKey, token)).toEqual({ activation, primaryApiAddr: 'http://a:8200' });
    expect(() => openActivation(pair().privateKey, token)).toThrow(/not encrypted to this cluster/);
  });

  it('refuses a key that is not X25519 PEM', () => {
    expect(() => sealActivation('nope', activation, '')).toThrow(/invalid secondary_public_key/);
  });
});
