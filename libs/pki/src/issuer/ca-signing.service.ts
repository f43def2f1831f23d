import { Inject, Injectable } from '@nestjs/common';
import * as x509 from '@peculiar/x509';
import { invalidRequest, type RequestOf, type ResponseOf } from '@coffer/contracts';
import type { pki } from '@coffer/contracts/pki';
import type { ServiceRuntime } from '@coffer/event-store';
import { CertificateSigner } from '../certificates/certificate-signer';
import { CertificateStore } from '../certificates/certificate-store.service';
import { asCryptoKey, nodeSigningCrypto } from '../crypto/node-signer';
import { parseCsr } from '../crypto/csr';
import { describeKey } from '../crypto/keys';
import { certificatePem } from '../crypto/pem';
import { planCertificate } from '../policy/certificate-plan';
import { PKI_RUNTIME } from '../pki.di';
import { caRole } from '../roles/role-defaults';
import { certFormat, mountTtl, renderCert, renderPem } from '../shared/formats';
import { CaStore, isCaCertificate } from './ca-store';
import { parseCertificates } from './issuer.service';

/** root/sign-intermediate and root/sign-self-issued: certificates for other CAs. */
@Injectable()
export class CaSigningService {
  constructor(
    private readonly cas: CaStore,
    private readonly signer: CertificateSigner,
    private readonly store: CertificateStore,
    @Inject(PKI_RUNTIME) private readonly runtime: Pick<ServiceRuntime, 'clock'>,
  ) {}

  async signIntermediate(
    req: RequestOf<typeof pki.rootSignIntermediate>,
  ): Promise<ResponseOf<typeof pki.rootSignIntermediate>> {
    const body = req.body;
    const format = certFormat(body.format);
    const csr = parseCsr(body.csr);
    const spec = describeKey(csr.publicKey);
    if (!spec) throw invalidRequest("could not parse CSR's public key");
    if (spec.type === 'rsa' && spec.bits < 2048)
      throw invalidRequest('RSA keys < 2048 bits are unsafe and not supported');
    const ca = await this.cas.require(req.mount.uuid);
    const caPathLen = ca.cert.getExtension(x509.BasicConstraintsExtension)?.pathLength;
    if (caPathLen === 0)
      throw invalidRequest('signing CA has a maximum path length of 0; it cannot sign CA certificates');
    const role = {
      ...caRole(body, 'any', 0),
      use_csr_common_name: body.use_csr_values,
      use_csr_sans: body.use_csr_values,
    };
    const plan = planCertificate({
      role,
      body,
      csr,
      mountTtl: mountTtl(req.mount),
      now: this.runtime.clock(),
      caNotAfter: ca.cert.notAfter,
    });
    const maxPathLength =
      body.max_path_length >= 0 ? body.max_path_length : caPathLen === undefined ? -1 : caPathLen - 1;
    const signed = await this.signer.sign({
      mountUuid: req.mount.uuid,
      plan,
      spki: csr.spki,
      ca,
      subject: body.use_csr_values ? csr.subject : undefined,
      isCa: true,
      maxPathLength,
      permittedDnsDomains: body.permitted_dns_domains,
    });
    await this.store.store(req.mount.uuid, signed);
    const issuingCa = renderPem(ca.certPem, format);
    const certificate = renderCert(signed.der, format);
    return {
      data: {
        certificate: format === 'pem_bundle' ? `${certificate}\n${issuingCa}` : certificate,
        issuing_ca: issuingCa,
        ca_chain: [issuingCa, ...ca.chainPems.map((p) => renderPem(p, format))],
        serial_number: signed.serial,
        expiration: Math.floor(signed.notAfter.getTime() / 1000),
      },
      warnings: plan.warnings,
    };
  }

  /** Re-signs a self-issued CA certificate (a root's key rollover) with this CA, keeping its content. */
  async signSelfIssued(
    req: RequestOf<typeof pki.rootSignSelfIssued>,
  ): Promise<ResponseOf<typeof pki.rootSignSelfIssued>> {
    const [cert, ...rest] = parseCertificates(req.body.certificate);
    if (!cert || rest.length > 0) throw invalidRequest('exactly one certificate is required');
    if (cert.subject !== cert.issuer) throw invalidRequest('given certificate is not self-issued');
    if (!isCaCertificate(cert)) throw invalidRequest('given certificate is not a CA certificate');
    const ca = await this.cas.require(req.mount.uuid);
    const extensions = cert.extensions.filter((e) => e.type !== '2.5.29.35');
    if (ca.keyId) extensions.push(new x509.AuthorityKeyIdentifierExtension(ca.keyId));
    const signed = await x509.X509CertificateGenerator.create(
      {
        serialNumber: cert.serialNumber,
        subject: cert.subjectName,
        issuer: ca.cert.subjectName,
        notBefore: cert.notBefore,
        notAfter: cert.notAfter,
        publicKey: Buffer.from(cert.publicKey.rawData),
        signingKey: asCryptoKey(ca.signer),
        signingAlgorithm: ca.signer.algorithm,
        extensions,
      },
      nodeSigningCrypto,
    );
    return { data: { certificate: certificatePem(Buffer.from(signed.rawData)), issuing_ca: ca.certPem } };
  }
}
