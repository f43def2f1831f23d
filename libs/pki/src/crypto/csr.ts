import type { KeyObject } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { invalidRequest } from '@coffer/contracts';
import { emptySans, parseGeneralNames, type SanSet } from './general-names';
import { publicKeyFromSpki } from './keys';
import { pemBlocks } from './pem';
import { hasValidSignature } from './signatures';

/** A CSR as the sign routes use it: checked signature, its key, subject and requested SANs. */
export interface ParsedCsr {
  subject: x509.Name;
  commonName: string;
  subjectSerialNumber: string;
  spki: Buffer;
  publicKey: KeyObject;
  sans: SanSet;
  /** basicConstraints CA:TRUE requested */
  requestsCa: boolean;
}

const OID_SAN = '2.5.29.17';

const firstValue = (name: x509.Name, type: string): string => name.getField(type)[0] ?? '';

/** Parses and checks a PEM CSR; every failure is a 400 with Vault's wording where it has one. */
export function parseCsr(pem: string): ParsedCsr {
  if (pem.trim() === '') throw invalidRequest('"csr" is empty');
  const block = pemBlocks(pem)[0];
  if (!block) throw invalidRequest('csr contains no data');
  let csr: x509.Pkcs10CertificateRequest;
  try {
    csr = new x509.Pkcs10CertificateRequest(block.der);
  } catch (error) {
    throw invalidRequest(`certificate request could not be parsed: ${(error as Error).message}`);
  }
  let publicKey: KeyObject;
  const spki = Buffer.from(csr.publicKey.rawData);
  try {
    publicKey = publicKeyFromSpki(spki);
  } catch {
    throw invalidRequest("could not parse CSR's public key");
  }
  if (!hasValidSignature(block.der, csr.signatureAlgorithm, publicKey))
    throw invalidRequest('request signature invalid: the CSR is not signed by its own key');
  const sanExt = csr.extensions.find((e) => e.type === OID_SAN);
  let sans = emptySans();
  try {
    if (sanExt) sans = parseGeneralNames(new Uint8Array(sanExt.value));
  } catch (error) {
    throw invalidRequest(`could not parse requested other SAN: ${(error as Error).message}`);
  }
  const bc = csr.extensions.find((e) => e instanceof x509.BasicConstraintsExtension);
  return {
    subject: csr.subjectName,
    commonName: firstValue(csr.subjectName, 'CN'),
    subjectSerialNumber: firstValue(csr.subjectName, '2.5.4.5'),
    spki,
    publicKey,
    sans,
    requestsCa: bc?.ca === true,
  };
}
