import type { KeyObject } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { oidDer, sequence, tlv } from './der';
import { generalNamesDer, hasSans, type SanSet } from './general-names';
import { spkiOf } from './keys';
import type { NodeSigningKey } from './node-signer';
import { signatureAlgorithmDer, signDer } from './tbs-writer';

const HEX = (s: string) => Buffer.from(s, 'hex');

const extension = (oid: string, critical: boolean, value: Uint8Array): Buffer =>
  sequence(oidDer(oid) ?? Buffer.alloc(0), ...(critical ? [HEX('0101ff')] : []), tlv(0x04, value));

/**
 * A PKCS#10 request for an intermediate CA key (intermediate/generate): the subject, the SANs
 * and, with add_basic_constraints, CA:TRUE in an extensionRequest; signed by the new key.
 */
export function buildCsr(
  subject: x509.Name,
  sans: SanSet,
  addBasicConstraints: boolean,
  signer: NodeSigningKey,
): Buffer {
  const key: KeyObject = signer.keyObject;
  const extensions: Buffer[] = [];
  if (addBasicConstraints) extensions.push(extension('2.5.29.19', true, sequence(HEX('0101ff'))));
  if (hasSans(sans)) extensions.push(extension('2.5.29.17', false, generalNamesDer(sans)));
  const attributes =
    extensions.length === 0
      ? tlv(0xa0, Buffer.alloc(0))
      : tlv(
          0xa0,
          sequence(oidDer('1.2.840.113549.1.9.14') ?? Buffer.alloc(0), tlv(0x31, sequence(...extensions))),
        );
  const info = sequence(HEX('020100'), Buffer.from(subject.toArrayBuffer()), spkiOf(key), attributes);
  const algorithmId = signatureAlgorithmDer(signer);
  if (!algorithmId) throw new Error(`pki: no CSR signature algorithm for ${signer.algorithm.name}`);
  return signDer(info, algorithmId, signer);
}
