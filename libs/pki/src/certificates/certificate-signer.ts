import type { KeyObject } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type * as x509 from '@peculiar/x509';
import { buildCertificate, subjectDer, type CaUrls } from '../crypto/certificate-builder';
import { signingKeyOf } from '../crypto/node-signer';
import { certificatePem, colonSerial, newSerialHex } from '../crypto/pem';
import { SettingsService } from '../settings/settings.service';
import type { LoadedCa } from '../issuer/ca-store';
import type { CertificatePlan } from '../policy/certificate-plan';

export interface SignRequest {
  mountUuid: string;
  plan: CertificatePlan;
  /** the subject to write instead of the plan's (sign-verbatim, use_csr_values) */
  subject?: x509.Name | Buffer;
  /** DER SubjectPublicKeyInfo of the certified key */
  spki: Buffer;
  /** the issuing CA; undefined for a self-signed root made with `selfKey` */
  ca?: LoadedCa;
  selfKey?: KeyObject;
  isCa?: boolean;
  maxPathLength?: number;
  permittedDnsDomains?: string[];
  /** the mount's URLs when the caller read them already */
  urls?: CaUrls;
}

export interface SignedCertificate {
  der: Buffer;
  notAfter: Date;
  pem: string;
  serial: string;
}

/** Turns a certificate plan into a signed certificate, with the mount's URLs. */
@Injectable()
export class CertificateSigner {
  constructor(private readonly settings: SettingsService) {}

  async sign(r: SignRequest): Promise<SignedCertificate> {
    const signingKey = r.ca?.key ?? r.selfKey;
    if (!signingKey) throw new Error('pki: nothing to sign with');
    const serialHex = newSerialHex();
    // DER times have whole seconds: the answer's expiration is the certificate's
    const notAfter = new Date(Math.floor(r.plan.notAfter.getTime() / 1000) * 1000);
    const der = await buildCertificate(
      {
        serialHex,
        subject: r.subject ?? subjectDer(r.plan.subject),
        issuer: r.ca?.cert.subjectName,
        authorityKeyId: r.ca?.keyId,
        notBefore: r.plan.notBefore,
        notAfter,
        publicKey: r.spki,
        sans: r.plan.sans,
        isCa: r.isCa ?? false,
        maxPathLength: r.maxPathLength ?? -1,
        basicConstraintsValidForNonCa: r.plan.basicConstraintsValidForNonCa,
        keyUsage: r.plan.keyUsage,
        extKeyUsage: r.plan.extKeyUsage,
        policyOids: r.plan.policyOids,
        permittedDnsDomains: r.permittedDnsDomains ?? [],
        urls: r.urls ?? (await this.settings.urls(r.mountUuid)),
      },
      r.ca?.signer ?? signingKeyOf(signingKey),
    );
    return { der, notAfter, pem: certificatePem(der), serial: colonSerial(serialHex) };
  }
}
