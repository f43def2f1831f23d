import { Injectable } from '@nestjs/common';
import { CertificateEventLog } from './certificate.projection';
import type { SignedCertificate } from './certificate-signer';

/** Keeps issued certificates (never their keys), so they can be listed, read and revoked. */
@Injectable()
export class CertificateStore {
  constructor(private readonly log: CertificateEventLog) {}

  async store(mountUuid: string, signed: SignedCertificate): Promise<void> {
    await this.log.append({ mountUuid, serial: signed.serial }, 0, [
      {
        type: 'CertificateStored',
        data: { certPem: signed.pem, notAfterMs: signed.notAfter.getTime() },
      },
    ]);
  }
}
