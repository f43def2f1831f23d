import {
  createCipheriv,
  createDecipheriv,
  createPrivateKey,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  randomBytes,
} from 'node:crypto';
import { invalidRequest } from '@coffer/contracts';
import { activationSchema, type Activation } from '@coffer/contracts/replication';
import { z } from 'zod';

/** Prefix of an activation token sealed to a secondary's public key (instead of wrapped). */
export const SEALED_ACTIVATION_PREFIX = 'cra1.';
const INFO = Buffer.from('coffer replication activation v1', 'utf8');

const envelopeSchema = z.object({ epk: z.string(), iv: z.string(), ct: z.string(), tag: z.string() });
const sealedSchema = z.object({ activation: activationSchema, primary_api_addr: z.string() });

function keyFrom(shared: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', shared, Buffer.alloc(0), INFO, 32));
}

/**
 * The `secondary_public_key` variant: the activation is encrypted to the secondary's X25519 key
 * (from generate-public-key) with an ephemeral key (ECDH, HKDF-SHA256, AES-256-GCM), so nothing
 * is kept at the primary and only that secondary can read it.
 */
export function sealActivation(publicKeyPem: string, activation: Activation, primaryApiAddr: string): string {
  let publicKey;
  try {
    publicKey = createPublicKey(publicKeyPem);
  } catch {
    throw invalidRequest('invalid secondary_public_key: expected the PEM answered by generate-public-key');
  }
  if (publicKey.asymmetricKeyType !== 'x25519')
    throw invalidRequest('invalid secondary_public_key: expected an X25519 public key');
  const eph = generateKeyPairSync('x25519');
  const key = keyFrom(diffieHellman({ privateKey: eph.privateKey, publicKey }));
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const plain = Buffer.from(JSON.stringify({ activation, primary_api_addr: primaryApiAddr }), 'utf8');
  const ct = Buffer.concat([cipher.update(plain), cipher.final()]);
  const envelope = {
    epk: eph.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
    iv: iv.toString('base64'),
    ct: ct.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
  };
  return SEALED_ACTIVATION_PREFIX + Buffer.from(JSON.stringify(envelope), 'utf8').toString('base64url');
}

export function openActivation(
  privateKeyPem: string,
  token: string,
): { activation: Activation; primaryApiAddr: string } {
  try {
    const envelope = envelopeSchema.parse(
      JSON.parse(Buffer.from(token.slice(SEALED_ACTIVATION_PREFIX.length), 'base64url').toString('utf8')),
    );
    const epk = createPublicKey({ key: Buffer.from(envelope.epk, 'base64'), format: 'der', type: 'spki' });
    const key = keyFrom(diffieHellman({ privateKey: createPrivateKey(privateKeyPem), publicKey: epk }));
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(envelope.iv, 'base64'));
    decipher.setAuthTag(Buffer.from(envelope.tag, 'base64'));
    const plain = Buffer.concat([decipher.update(Buffer.from(envelope.ct, 'base64')), decipher.final()]);
    const sealed = sealedSchema.parse(JSON.parse(plain.toString('utf8')));
    return { activation: sealed.activation, primaryApiAddr: sealed.primary_api_addr };
  } catch {
    throw invalidRequest("invalid activation token: it was not encrypted to this cluster's public key");
  }
}
