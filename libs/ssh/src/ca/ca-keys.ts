import { createHash, createPrivateKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import sshpk from 'sshpk';
import { invalidRequest } from '@coffer/contracts';
import { mpint, readStrings, sshString } from '../sign/ssh-wire';

/** SSH keys with sshpk for formats and node's crypto for keys and signatures. */

export type SshKeyAlgorithm = 'rsa' | 'ecdsa' | 'ed25519';

/** A CA (or admin) private key ready to sign. */
export interface SigningKey {
  algorithm: SshKeyAlgorithm;
  /** "nistp256" | "nistp384" | "nistp521" for ecdsa */
  curve?: string;
  /** the public key's wire blob (RFC 4253), the certificate's signature key */
  publicBlob: Buffer;
  /** "ssh-ed25519 AAAA...\n" */
  publicText: string;
  keyObject: KeyObject;
}

const b64url = (b: Buffer): string => b.toString('base64url');

function part(key: sshpk.Key | sshpk.PrivateKey, name: string): Buffer {
  const found = key.parts.find((p) => p.name === name);
  if (!found) throw new Error(`ssh key without part ${name}`);
  return found.data;
}

/** The node key of an sshpk private key (sshpk's own PKCS#8 of ed25519 does not load in OpenSSL). */
function nodeKey(key: sshpk.PrivateKey): KeyObject {
  if (key.type === 'ed25519') {
    const jwk = { kty: 'OKP', crv: 'Ed25519', d: b64url(part(key, 'k')), x: b64url(part(key, 'A')) };
    return createPrivateKey({ key: jwk, format: 'jwk' });
  }
  return createPrivateKey(key.toString('pkcs8'));
}

function algorithmOf(type: string): SshKeyAlgorithm | undefined {
  return type === 'rsa' || type === 'ecdsa' || type === 'ed25519' ? type : undefined;
}

/** A private key in any format OpenSSH or OpenSSL writes (PEM PKCS#1/PKCS#8/SEC1, OpenSSH). */
export function parsePrivateKey(text: string, what = 'private_key'): SigningKey {
  let key: sshpk.PrivateKey;
  try {
    key = sshpk.parsePrivateKey(text, 'auto');
  } catch (error) {
    throw invalidRequest(`Unable to parse ${what} as an SSH private key: ${(error as Error).message}`);
  }
  const algorithm = algorithmOf(key.type);
  if (!algorithm) throw invalidRequest(`Unable to parse ${what}: unsupported key type ${key.type}`);
  const pub = key.toPublic();
  return {
    algorithm,
    ...(algorithm === 'ecdsa' ? { curve: key.curve } : {}),
    publicBlob: pub.toBuffer('rfc4253'),
    publicText: `${pub.toString('ssh').split(' ').slice(0, 2).join(' ')}\n`,
    keyObject: nodeKey(key),
  };
}

/** A public key in authorized_keys format ("ssh-ed25519 AAAA... comment"). */
export function parsePublicKey(text: string): sshpk.Key {
  const trimmed = text.trim();
  if (trimmed.includes('\n')) throw new Error('expected one key');
  const key = sshpk.parseKey(trimmed, 'ssh');
  if (key.toString('ssh').split(' ')[0]?.includes('-cert-')) throw new Error('a certificate, not a key');
  return key;
}

/** The OpenSSH text of a public key, without its comment. */
export const publicKeyText = (key: sshpk.Key): string =>
  `${key.toString('ssh').split(' ').slice(0, 2).join(' ')}\n`;

/** SHA-256 of the public key's wire blob, hex (key_id_format's {{public_key_hash}}). */
export const publicKeyHash = (key: sshpk.Key): string =>
  createHash('sha256').update(key.toBuffer('rfc4253')).digest('hex');

/** Vault's generateSSHKeyPair: ssh-rsa / rsa (4096 unless key_bits, at least 2048), ecdsa, ed25519. */
export function generateKeyPair(keyType: string, keyBits: number): { privateKey: string; publicKey: string } {
  let pem: string;
  if (keyType === 'ssh-rsa' || keyType === 'rsa') {
    const bits = keyBits === 0 ? 4096 : keyBits;
    if (bits < 2048)
      throw invalidRequest(`refusing to generate weak ${keyType} key: ${bits} bits < 2048 bits`);
    if (bits > 8192 || bits % 8 !== 0) throw invalidRequest(`invalid key_bits for ${keyType}: ${bits}`);
    pem = generateKeyPairSync('rsa', { modulusLength: bits })
      .privateKey.export({ type: 'pkcs1', format: 'pem' })
      .toString();
  } else if (keyType.startsWith('ecdsa-sha2-nistp') || keyType === 'ec') {
    const byName: Record<string, string> = {
      'ecdsa-sha2-nistp256': 'P-256',
      'ecdsa-sha2-nistp384': 'P-384',
      'ecdsa-sha2-nistp521': 'P-521',
    };
    const byBits: Record<number, string> = { 0: 'P-256', 256: 'P-256', 384: 'P-384', 521: 'P-521' };
    const curve = keyType === 'ec' ? byBits[keyBits] : byName[keyType];
    if (!curve) throw invalidRequest(`unknown ECDSA key pair algorithm and bits: ${keyType} / ${keyBits}`);
    pem = generateKeyPairSync('ec', { namedCurve: curve })
      .privateKey.export({ type: 'sec1', format: 'pem' })
      .toString();
  } else if (keyType === 'ssh-ed25519' || keyType === 'ed25519') {
    pem = sshpk
      .parsePrivateKey(
        generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        'pem',
      )
      .toString('openssh');
  } else {
    throw invalidRequest(`unknown ssh key pair algorithm: ${keyType}`);
  }
  return { privateKey: pem, publicKey: parsePrivateKey(pem).publicText };
}

const EC_HASH: Record<string, string> = { nistp256: 'sha256', nistp384: 'sha384', nistp521: 'sha512' };
const RSA_HASH: Record<string, string> = {
  'ssh-rsa': 'sha1',
  'rsa-sha2-256': 'sha256',
  'rsa-sha2-512': 'sha512',
};

/**
 * An SSH signature blob (string algorithm, string signature) over `data`. `rsaAlgorithm` picks
 * the RSA signature (ssh-rsa, rsa-sha2-256, rsa-sha2-512); other keys have one algorithm.
 */
export function signSsh(key: SigningKey, data: Buffer, rsaAlgorithm = 'rsa-sha2-256'): Buffer {
  if (key.algorithm === 'ed25519') {
    return Buffer.concat([sshString('ssh-ed25519'), sshString(sign(null, data, key.keyObject))]);
  }
  if (key.algorithm === 'rsa') {
    const hash = RSA_HASH[rsaAlgorithm];
    if (!hash) throw new Error(`unknown RSA signature algorithm ${rsaAlgorithm}`);
    return Buffer.concat([sshString(rsaAlgorithm), sshString(sign(hash, data, key.keyObject))]);
  }
  const curve = key.curve ?? 'nistp256';
  const raw = sign(EC_HASH[curve] ?? 'sha256', data, { key: key.keyObject, dsaEncoding: 'ieee-p1363' });
  const half = raw.length / 2;
  const rs = Buffer.concat([mpint(raw.subarray(0, half)), mpint(raw.subarray(half))]);
  return Buffer.concat([sshString(`ecdsa-sha2-${curve}`), sshString(rs)]);
}

/** The key fields of a public key blob after its type name (what a certificate embeds). */
export function publicKeyFields(blob: Buffer): Buffer {
  const [type] = readStrings(blob.subarray(0, 4 + blob.readUInt32BE(0)));
  return blob.subarray(4 + (type?.length ?? 0));
}
