import { generateKeyPairSync } from 'node:crypto';
import sshpk from 'sshpk';

/** A fresh RSA key pair for a dynamic credential: the private key PEM and the OpenSSH public key. */
export function generateDynamicKey(bits: number): { privateKey: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: bits });
  const pem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const ssh = sshpk.parseKey(publicKey.export({ type: 'spki', format: 'pem' }).toString(), 'pem');
  return { privateKey: pem, publicKey: ssh.toString('ssh').split(' ').slice(0, 2).join(' ') };
}

/** The authorized_keys line: key_option_specs, then the key. */
export const authorizedKeyLine = (options: string, publicKey: string): string =>
  options.trim() === '' ? publicKey : `${options.trim()} ${publicKey}`;
