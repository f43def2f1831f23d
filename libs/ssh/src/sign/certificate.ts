import { randomBytes } from 'node:crypto';
import { publicKeyFields, signSsh, type SigningKey } from '../ca/ca-keys';
import { optionList, sshString, u32, u64 } from './ssh-wire';

/** What a certificate says (PROTOCOL.certkeys); the CA key and signature algorithm sign it. */
export interface CertificateSpec {
  /** the subject key's wire blob (RFC 4253) and its type name, e.g. "ssh-ed25519" */
  publicBlob: Buffer;
  keyType: string;
  serial: bigint;
  certType: 'user' | 'host';
  keyId: string;
  principals: readonly string[];
  /** unix seconds */
  validAfter: number;
  validBefore: number;
  criticalOptions: Record<string, string>;
  extensions: Record<string, string>;
}

/** A random, non-zero 64-bit serial number. */
export function randomSerial(): bigint {
  for (;;) {
    const serial = randomBytes(8).readBigUInt64BE();
    if (serial !== 0n) return serial;
  }
}

/** "ssh-ed25519" -> "ssh-ed25519-cert-v01@openssh.com" */
export const certificateTypeName = (keyType: string): string => `${keyType}-cert-v01@openssh.com`;

/**
 * The signed certificate in authorized_keys format ("<type>-cert-v01@openssh.com AAAA...\n"),
 * as Vault's ssh.MarshalAuthorizedKey writes it.
 */
export function signCertificate(spec: CertificateSpec, ca: SigningKey, rsaAlgorithm?: string): string {
  const typeName = certificateTypeName(spec.keyType);
  const toSign = Buffer.concat([
    sshString(typeName),
    sshString(randomBytes(32)),
    publicKeyFields(spec.publicBlob),
    u64(spec.serial),
    u32(spec.certType === 'user' ? 1 : 2),
    sshString(spec.keyId),
    sshString(Buffer.concat(spec.principals.map((p) => sshString(p)))),
    u64(BigInt(spec.validAfter)),
    u64(BigInt(spec.validBefore)),
    sshString(optionList(spec.criticalOptions)),
    sshString(optionList(spec.extensions)),
    sshString(''),
    sshString(ca.publicBlob),
  ]);
  const signature = signSsh(ca, toSign, rsaAlgorithm);
  const blob = Buffer.concat([toSign, sshString(signature)]);
  return `${typeName} ${blob.toString('base64')}\n`;
}
