import { Injectable } from '@nestjs/common';
import { notFound, type RequestOf, type ResponseOf } from '@coffer/contracts';
import type { pki } from '@coffer/contracts/pki';
import { RevocationService } from '../certificates/revocation.service';
import { CrlService, type CrlKind } from '../crl/crl.service';
import { CaStore } from './ca-store';

type Raw = ResponseOf<typeof pki.caPem>;

/** No CA (or no CRL) yet: Vault answers the raw routes with 204 and no body. */
const NOTHING: Raw = { kind: 'raw', status: 204 };

const rfc3339 = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The unauthenticated reads: ca, ca/pem, ca_chain, crl, crl/pem, unified-crl[/pem], cert/:serial. */
@Injectable()
export class CaReadService {
  constructor(
    private readonly cas: CaStore,
    private readonly crls: CrlService,
    private readonly revocation: RevocationService,
  ) {}

  async caDer(mountUuid: string): Promise<Raw> {
    const ca = await this.cas.find(mountUuid);
    if (!ca) return NOTHING;
    const body = Buffer.from(ca.cert.rawData).toString('base64');
    return { kind: 'raw', body, bodyEncoding: 'base64', contentType: 'application/pkix-cert' };
  }

  async caPem(mountUuid: string): Promise<Raw> {
    const ca = await this.cas.find(mountUuid);
    return ca ? { kind: 'raw', body: ca.certPem, contentType: 'application/pem-certificate-chain' } : NOTHING;
  }

  async caChain(mountUuid: string): Promise<Raw> {
    const chain = await this.chainPem(mountUuid);
    return chain ? { kind: 'raw', body: chain, contentType: 'application/pem-certificate-chain' } : NOTHING;
  }

  async crlDer(mountUuid: string, kind: CrlKind = 'served'): Promise<Raw> {
    const der = await this.crls.der(mountUuid, kind);
    if (!der) return NOTHING;
    return {
      kind: 'raw',
      body: der.toString('base64'),
      bodyEncoding: 'base64',
      contentType: 'application/pkix-crl',
    };
  }

  async crlPem(mountUuid: string, kind: CrlKind = 'served'): Promise<Raw> {
    const pem = await this.crls.pem(mountUuid, kind);
    return pem ? { kind: 'raw', body: pem, contentType: 'application/x-pem-file' } : NOTHING;
  }

  async cert(req: RequestOf<typeof pki.certRead>): Promise<ResponseOf<typeof pki.certRead>> {
    const mountUuid = req.mount.uuid;
    const serial = req.params.serial;
    if (serial === 'ca' || serial === 'ca_chain') {
      const ca = await this.cas.find(mountUuid);
      if (!ca) throw notFound();
      const certificate = serial === 'ca' ? ca.certPem : ((await this.chainPem(mountUuid)) ?? '');
      return { data: { certificate, revocation_time: 0, ca_chain: [ca.certPem, ...ca.chainPems] } };
    }
    if (serial === 'crl') {
      const pem = await this.crls.pem(mountUuid);
      if (!pem) throw notFound();
      return { data: { certificate: pem, revocation_time: 0 } };
    }
    const cert = await this.revocation.read(mountUuid, serial);
    const revokedSeconds = cert.revokedMs === null ? 0 : Math.floor(cert.revokedMs / 1000);
    return {
      data: {
        certificate: cert.certPem,
        revocation_time: revokedSeconds,
        ...(cert.revokedMs === null ? {} : { revocation_time_rfc3339: rfc3339(revokedSeconds * 1000) }),
      },
    };
  }

  private async chainPem(mountUuid: string): Promise<string | undefined> {
    const ca = await this.cas.find(mountUuid);
    return ca ? [ca.certPem, ...ca.chainPems].join('\n') : undefined;
  }
}
