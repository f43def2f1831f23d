import type { KeyObject } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  invalidRequest,
  type CallerContext,
  type MountInfo,
  type RequestOf,
  type ResponseOf,
} from '@coffer/contracts';
import type { pki, PkiCertificateData, PkiIssueBody, PkiRoleData } from '@coffer/contracts/pki';
import type { ServiceRuntime } from '@coffer/event-store';
import { parseCsr, type ParsedCsr } from '../crypto/csr';
import { describeKey, exportPrivateKey, resolveKeySpec, spkiOf, type KeyType } from '../crypto/keys';
import { CaStore, NO_CA_MESSAGE, type LoadedCa } from '../issuer/ca-store';
import type { IssuerState } from '../issuer/issuer.events';
import { DocumentRepository, type DocumentKind } from '../shared/document.repository';
import { NO_URLS } from '../settings/settings.service';
import type { CaUrls } from '../crypto/certificate-builder';
import { planCertificate } from '../policy/certificate-plan';
import { PKI_RUNTIME } from '../pki.di';
import { defaultRole, verbatimRole } from '../roles/role-defaults';
import {
  certFormat,
  certificateLease,
  mountTtl,
  privateKeyFormat,
  renderCert,
  renderPem,
  type CertFormat,
} from '../shared/formats';
import { KeyFactory } from '../shared/key-factory';
import { CertificateSigner, type SignedCertificate } from './certificate-signer';
import { CertificateStore } from './certificate-store.service';

type CertResponse = ResponseOf<typeof pki.issue>;
const RSA_TOO_SMALL = 'RSA keys < 2048 bits are unsafe and not supported';

/** Vault's signCert key checks: the CSR's key against the role's key_type and key_bits. */
export function checkCsrKey(role: PkiRoleData, csr: ParsedCsr): void {
  const spec = describeKey(csr.publicKey);
  if (!spec) throw invalidRequest("could not parse CSR's public key");
  if (role.key_type !== 'any' && spec.type !== role.key_type)
    throw invalidRequest(`role requires keys of type ${role.key_type}`);
  if (spec.type === 'rsa' && spec.bits < 2048) throw invalidRequest(RSA_TOO_SMALL);
  if (role.key_type !== 'any' && spec.type !== 'ed25519' && spec.bits < role.key_bits)
    throw invalidRequest(
      `role requires a minimum of a ${role.key_bits}-bit key, but CSR's key is ${spec.bits} bits`,
    );
}

interface IssuanceContext {
  role: PkiRoleData;
  ca: LoadedCa | undefined;
  urls: CaUrls;
}

const requireCa = (ca: LoadedCa | undefined): LoadedCa => {
  if (!ca) throw invalidRequest(NO_CA_MESSAGE);
  return ca;
};

/** issue/:role, sign/:role and sign-verbatim. */
@Injectable()
export class IssueService {
  constructor(
    private readonly docs: DocumentRepository,
    private readonly cas: CaStore,
    private readonly keys: KeyFactory,
    private readonly signer: CertificateSigner,
    private readonly store: CertificateStore,
    @Inject(PKI_RUNTIME) private readonly runtime: Pick<ServiceRuntime, 'clock'>,
  ) {}

  async issue(req: RequestOf<typeof pki.issue>, caller: CallerContext): Promise<CertResponse> {
    const { role, ca: found, urls } = await this.context(req.mount, req.params.name);
    if (role.key_type === 'any')
      throw invalidRequest('role key type "any" not allowed for issuing certificates, only signing');
    const format = certFormat(req.body.format);
    const keyFormat = privateKeyFormat(req.body.private_key_format);
    const ca = requireCa(found);
    const plan = this.plan(req.mount, role, req.body, ca, caller);
    const spec = resolveKeySpec(role.key_type, role.key_bits);
    const key: KeyObject = await this.keys.generate({ type: spec.type as KeyType, bits: spec.bits });
    const signed = await this.signer.sign({ mountUuid: req.mount.uuid, plan, spki: spkiOf(key), ca, urls });
    const privateKey = exportPrivateKey(key, keyFormat, format !== 'der');
    return this.answer(req.mount.uuid, role, ca, signed, format, plan.warnings, {
      privateKey,
      type: spec.type,
    });
  }

  async sign(req: RequestOf<typeof pki.sign>, caller: CallerContext): Promise<CertResponse> {
    const { role, ca: found, urls } = await this.context(req.mount, req.params.name);
    const format = certFormat(req.body.format);
    const csr = parseCsr(req.body.csr);
    if (csr.requestsCa)
      throw invalidRequest(
        'the CSR requests a CA certificate (basicConstraints CA:TRUE); use root/sign-intermediate',
      );
    checkCsrKey(role, csr);
    const ca = requireCa(found);
    const plan = this.plan(req.mount, role, req.body, ca, caller, csr);
    const signed = await this.signer.sign({ mountUuid: req.mount.uuid, plan, spki: csr.spki, ca, urls });
    return this.answer(req.mount.uuid, role, ca, signed, format, plan.warnings);
  }

  async signVerbatim(req: RequestOf<typeof pki.signVerbatim>, caller: CallerContext): Promise<CertResponse> {
    const context = await this.context(req.mount, req.params.role === '' ? undefined : req.params.role);
    const base = req.params.role === '' ? undefined : context.role;
    const role = verbatimRole(base, req.body);
    const format = certFormat(req.body.format);
    const csr = parseCsr(req.body.csr);
    if (csr.requestsCa)
      throw invalidRequest('refusing to sign a CSR for a CA certificate with sign-verbatim');
    checkCsrKey(role, csr);
    const ca = requireCa(context.ca);
    const plan = this.plan(req.mount, role, req.body, ca, caller, csr);
    const signed = await this.signer.sign({
      urls: context.urls,
      mountUuid: req.mount.uuid,
      plan,
      spki: csr.spki,
      ca,
      subject: csr.subject,
    });
    return this.answer(req.mount.uuid, role, ca, signed, format, plan.warnings);
  }

  /** The role, the CA and the URLs in one read; 400 for an unknown role (a missing CA is the caller's to refuse). */
  private async context(mount: MountInfo, roleName: string | undefined): Promise<IssuanceContext> {
    const wanted: { kind: DocumentKind; name: string }[] = [
      { kind: 'issuer', name: '' },
      { kind: 'urls', name: '' },
    ];
    if (roleName !== undefined) wanted.push({ kind: 'role', name: roleName });
    const docs = await this.docs.loadMany(mount.uuid, wanted);
    const role =
      roleName === undefined
        ? defaultRole()
        : (docs.get(`role/${roleName}`)?.value as PkiRoleData | undefined);
    if (!role) throw invalidRequest(`unknown role: ${roleName ?? ''}`);
    const issuer = docs.get('issuer/');
    const ca = issuer
      ? this.cas.fromState(mount.uuid, issuer.value as IssuerState, issuer.version)
      : undefined;
    const urls = (docs.get('urls/')?.value as CaUrls | undefined) ?? NO_URLS;
    return { role, ca, urls };
  }

  private plan(
    mount: MountInfo,
    role: PkiRoleData,
    body: PkiIssueBody,
    ca: LoadedCa,
    caller: CallerContext,
    csr?: ParsedCsr,
  ) {
    return planCertificate({
      role,
      body,
      csr,
      mountTtl: mountTtl(mount),
      now: this.runtime.clock(),
      caNotAfter: ca.cert.notAfter,
      displayName: caller.displayName ?? '',
    });
  }

  /** Stores the certificate (unless no_store) and answers it, with a lease when the role asks. */
  private async answer(
    mountUuid: string,
    role: PkiRoleData,
    ca: LoadedCa,
    signed: SignedCertificate,
    format: CertFormat,
    warnings: string[],
    key?: { privateKey: string; type: string },
  ): Promise<CertResponse> {
    if (!role.no_store) await this.store.store(mountUuid, signed);
    const certificate = renderCert(signed.der, format);
    const issuingCa = renderPem(ca.certPem, format);
    const data: PkiCertificateData = {
      certificate,
      issuing_ca: issuingCa,
      ca_chain: [issuingCa, ...ca.chainPems.map((p) => renderPem(p, format))],
      serial_number: signed.serial,
      expiration: Math.floor(signed.notAfter.getTime() / 1000),
    };
    if (key) {
      data.private_key = key.privateKey;
      data.private_key_type = key.type;
    }
    if (format === 'pem_bundle')
      data.certificate = [...(key ? [key.privateKey] : []), certificate, issuingCa].join('\n');
    const response: CertResponse = { data, warnings };
    if (role.generate_lease) response.secret = certificateLease(signed, this.runtime.clock().getTime());
    return response;
  }
}
