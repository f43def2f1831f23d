import * as x509 from '@peculiar/x509';
import { integerDer } from './der';
import { asCryptoKey, nodeSigningCrypto, type NodeSigningKey } from './node-signer';

export interface CrlEntry {
  serialHex: string;
  revokedAt: Date;
}

export interface CrlTemplate {
  issuer: x509.Name;
  authorityKeyId: string | undefined;
  number: bigint;
  thisUpdate: Date;
  nextUpdate: Date;
  entries: CrlEntry[];
}

const OID_CRL_NUMBER = '2.5.29.20';

/** A v2 CRL (DER) built with @peculiar/x509 and signed by node:crypto. */
export async function buildCrl(t: CrlTemplate, signer: NodeSigningKey): Promise<Buffer> {
  const extensions: x509.Extension[] = [new x509.Extension(OID_CRL_NUMBER, false, integerDer(t.number))];
  if (t.authorityKeyId) extensions.unshift(new x509.AuthorityKeyIdentifierExtension(t.authorityKeyId));
  const crl = await x509.X509CrlGenerator.create(
    {
      issuer: t.issuer,
      thisUpdate: t.thisUpdate,
      nextUpdate: t.nextUpdate,
      signingKey: asCryptoKey(signer),
      signingAlgorithm: signer.algorithm,
      extensions,
      entries: t.entries.map((e) => ({ serialNumber: e.serialHex, revocationDate: e.revokedAt })),
    },
    nodeSigningCrypto,
  );
  return Buffer.from(crl.rawData);
}
